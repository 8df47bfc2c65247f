//! linuxptp's management protocol, the small part of it that reads the
//! PTP servo's state from `ptp4l`: the GET request, the decoder of its
//! responses (PTP header, management message, MANAGEMENT or
//! MANAGEMENT_ERROR_STATUS TLV; IEEE 1588-2008 §15 and linuxptp's own
//! `TIME_STATUS_NP`), the collection of one sample's four answers, and the
//! record a run keeps of its samples. Pure: the socket lives in
//! `runtime::servo`.
//!
//! Each sample asks four data sets: `DEFAULT_DATA_SET` (the clock's
//! identity and how many ports answer `PORT_DATA_SET`),
//! `TIME_STATUS_NP` (the offset from the master, whether a grandmaster is
//! present and who), `CURRENT_DATA_SET` (the mean path delay) and
//! `PORT_DATA_SET` (each port's state: `SLAVE` once the servo has
//! locked). Every field is big-endian on the wire.

use std::fmt;

use serde::{Deserialize, Serialize};

/// `ptp4l`'s default management socket.
pub const DEFAULT_SOCKET: &str = "/var/run/ptp4l";
/// The PTP common header (34 bytes) plus the management message's own
/// fields (target port identity, hops, action).
pub const MANAGEMENT_LEN: usize = 48;
/// A GET request: header, management fields, a TLV with only its id.
pub const REQUEST_LEN: usize = MANAGEMENT_LEN + 6;
/// `messageType` of a management message.
pub const MESSAGE_MANAGEMENT: u8 = 0x0D;
/// PTP version 2.
pub const VERSION: u8 = 2;
/// `controlField` of a management message.
const CONTROL_MANAGEMENT: u8 = 4;
/// `actionField` GET.
pub const ACTION_GET: u8 = 0;
/// `actionField` RESPONSE.
pub const ACTION_RESPONSE: u8 = 2;
/// TLV type MANAGEMENT.
pub const TLV_MANAGEMENT: u16 = 0x0001;
/// TLV type MANAGEMENT_ERROR_STATUS.
pub const TLV_MANAGEMENT_ERROR_STATUS: u16 = 0x0002;
/// Management id of `DEFAULT_DATA_SET`.
pub const ID_DEFAULT_DATA_SET: u16 = 0x2000;
/// Management id of `CURRENT_DATA_SET`.
pub const ID_CURRENT_DATA_SET: u16 = 0x2001;
/// Management id of `PORT_DATA_SET`.
pub const ID_PORT_DATA_SET: u16 = 0x2004;
/// Management id of linuxptp's `TIME_STATUS_NP`.
pub const ID_TIME_STATUS_NP: u16 = 0xC000;
/// The data sets one sample asks for, in the order they are sent.
pub const SAMPLE_IDS: [u16; 4] = [
    ID_TIME_STATUS_NP,
    ID_CURRENT_DATA_SET,
    ID_PORT_DATA_SET,
    ID_DEFAULT_DATA_SET,
];
/// Data length of `DEFAULT_DATA_SET`.
const DEFAULT_DATA_SET_LEN: usize = 20;
/// Data length of `CURRENT_DATA_SET`.
const CURRENT_DATA_SET_LEN: usize = 18;
/// Data length of `PORT_DATA_SET`.
const PORT_DATA_SET_LEN: usize = 26;
/// Data length of `TIME_STATUS_NP`.
const TIME_STATUS_NP_LEN: usize = 50;

/// The name of a management id, for messages.
pub fn id_name(id: u16) -> String {
    match id {
        ID_DEFAULT_DATA_SET => "DEFAULT_DATA_SET".into(),
        ID_CURRENT_DATA_SET => "CURRENT_DATA_SET".into(),
        ID_PORT_DATA_SET => "PORT_DATA_SET".into(),
        ID_TIME_STATUS_NP => "TIME_STATUS_NP".into(),
        _ => format!("management id 0x{id:04X}"),
    }
}

/// A GET of management id `id`, sequence number `sequence_id`, from port
/// `port_number` of the all-zero clock identity (what `pmc` uses on its
/// Unix socket), to every port of every clock (`boundaryHops` 0: the
/// daemon answers, it forwards nothing), domain 0.
pub fn get_request(sequence_id: u16, port_number: u16, id: u16) -> [u8; REQUEST_LEN] {
    let mut m = [0u8; REQUEST_LEN];
    m[0] = MESSAGE_MANAGEMENT;
    m[1] = VERSION;
    m[2..4].copy_from_slice(&(REQUEST_LEN as u16).to_be_bytes());
    // domain 0, flags 0, correction 0, source clock identity 0.
    m[28..30].copy_from_slice(&port_number.to_be_bytes());
    m[30..32].copy_from_slice(&sequence_id.to_be_bytes());
    m[32] = CONTROL_MANAGEMENT;
    m[33] = 0x7F; // logMessageInterval: none
    m[34..44].fill(0xFF); // targetPortIdentity: all clocks, all ports
    m[46] = ACTION_GET;
    m[48..50].copy_from_slice(&TLV_MANAGEMENT.to_be_bytes());
    m[50..52].copy_from_slice(&2u16.to_be_bytes());
    m[52..54].copy_from_slice(&id.to_be_bytes());
    m
}

/// A PTP clock identity (EUI-64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockIdentity(pub [u8; 8]);

impl fmt::Display for ClockIdentity {
    /// As linuxptp prints it: `5ad2a5.fffe.5804bc`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{:02x}{:02x}{:02x}.{:02x}{:02x}.{:02x}{:02x}{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
        )
    }
}

/// A clock identity and a port number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortIdentity {
    /// The clock.
    pub clock: ClockIdentity,
    /// The port (0: the clock itself, as on the daemon's Unix socket).
    pub port: u16,
}

/// A PTP port's state (IEEE 1588 `portState`; 10 is linuxptp's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortState {
    /// 1.
    Initializing,
    /// 2.
    Faulty,
    /// 3.
    Disabled,
    /// 4: waiting for announce messages.
    Listening,
    /// 5.
    PreMaster,
    /// 6: this port is a master.
    Master,
    /// 7.
    Passive,
    /// 8: a master is chosen, the servo has not locked yet.
    Uncalibrated,
    /// 9: the servo follows the master and has locked.
    Slave,
    /// 10 (linuxptp): the grandmaster.
    GrandMaster,
    /// Any other value.
    Other(u8),
}

impl PortState {
    /// From the wire.
    pub fn from_u8(v: u8) -> Self {
        use PortState::*;
        match v {
            1 => Initializing,
            2 => Faulty,
            3 => Disabled,
            4 => Listening,
            5 => PreMaster,
            6 => Master,
            7 => Passive,
            8 => Uncalibrated,
            9 => Slave,
            10 => GrandMaster,
            n => Other(n),
        }
    }

    /// The name `pmc` prints.
    pub fn name(self) -> String {
        use PortState::*;
        match self {
            Initializing => "INITIALIZING".into(),
            Faulty => "FAULTY".into(),
            Disabled => "DISABLED".into(),
            Listening => "LISTENING".into(),
            PreMaster => "PRE_MASTER".into(),
            Master => "MASTER".into(),
            Passive => "PASSIVE".into(),
            Uncalibrated => "UNCALIBRATED".into(),
            Slave => "SLAVE".into(),
            GrandMaster => "GRAND_MASTER".into(),
            Other(n) => format!("state {n}"),
        }
    }
}

/// `DEFAULT_DATA_SET`, the fields a sample uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultDataSet {
    /// PTP ports of the clock (each answers `PORT_DATA_SET`).
    pub number_ports: u16,
    /// The clock's identity.
    pub clock_identity: ClockIdentity,
    /// Its domain.
    pub domain: u8,
}

/// `CURRENT_DATA_SET`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurrentDataSet {
    /// Steps from the grandmaster.
    pub steps_removed: u16,
    /// Offset from the master, ns (a TimeInterval: ns × 2^16 on the wire).
    pub offset_from_master_ns: f64,
    /// Mean path delay to the master, ns.
    pub mean_path_delay_ns: f64,
}

/// `PORT_DATA_SET`, the fields a sample uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortDataSet {
    /// The port.
    pub port: PortIdentity,
    /// Its state.
    pub state: PortState,
}

/// linuxptp's `TIME_STATUS_NP`, the fields a sample uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeStatus {
    /// The servo's last offset from the master, ns.
    pub master_offset_ns: i64,
    /// When the last sync message arrived, ns of the clock.
    pub ingress_time_ns: i64,
    /// A grandmaster other than this clock is known.
    pub gm_present: bool,
    /// The grandmaster (this clock's own identity when it is one).
    pub gm_identity: ClockIdentity,
}

/// The data set a response carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DataSet {
    /// `DEFAULT_DATA_SET`.
    Default(DefaultDataSet),
    /// `CURRENT_DATA_SET`.
    Current(CurrentDataSet),
    /// `PORT_DATA_SET`.
    Port(PortDataSet),
    /// `TIME_STATUS_NP`.
    TimeStatus(TimeStatus),
    /// Any other id, not decoded.
    Other(u16),
}

/// What a response says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Body {
    /// The data set asked for.
    Data(DataSet),
    /// MANAGEMENT_ERROR_STATUS: the daemon refused the GET of `id`.
    Error {
        /// `managementErrorId`.
        error: u16,
        /// The management id it refused.
        id: u16,
    },
}

/// One decoded response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Response {
    /// Who answered.
    pub source: PortIdentity,
    /// The request's sequence number.
    pub sequence_id: u16,
    /// Its management id.
    pub id: u16,
    /// The answer.
    pub body: Body,
}

/// Why bytes are not a management response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than a management message's fixed part.
    Short(usize),
    /// Another PTP message type.
    NotManagement(u8),
    /// Another PTP version.
    Version(u8),
    /// `messageLength` disagrees with the datagram.
    Length {
        /// What the header says.
        said: usize,
        /// What arrived.
        got: usize,
    },
    /// An action other than RESPONSE.
    NotResponse(u8),
    /// The TLV runs past the message, or is too short for its type.
    Tlv {
        /// TLV type.
        kind: u16,
        /// Its lengthField.
        len: usize,
    },
    /// A TLV type other than MANAGEMENT or MANAGEMENT_ERROR_STATUS.
    TlvType(u16),
    /// A data set shorter than its layout.
    DataSet {
        /// Management id.
        id: u16,
        /// Bytes it has.
        got: usize,
        /// Bytes its layout needs.
        need: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Short(n) => write!(
                f,
                "{n} bytes, shorter than a management message ({} bytes at least)",
                MANAGEMENT_LEN + 4
            ),
            DecodeError::NotManagement(t) => {
                write!(f, "message type {t}, not a management message (13)")
            }
            DecodeError::Version(v) => write!(f, "PTP version {v}, not 2"),
            DecodeError::Length { said, got } => {
                write!(f, "messageLength {said} but {got} bytes arrived")
            }
            DecodeError::NotResponse(a) => write!(f, "action {a}, not a RESPONSE (2)"),
            DecodeError::Tlv { kind, len } => write!(
                f,
                "TLV type 0x{kind:04X} of length {len} does not fit its message"
            ),
            DecodeError::TlvType(t) => write!(f, "TLV type 0x{t:04X}, not a management TLV"),
            DecodeError::DataSet { id, got, need } => write!(
                f,
                "{} of {got} bytes, shorter than its {need}",
                id_name(*id)
            ),
        }
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(w)
}

fn identity(b: &[u8], at: usize) -> ClockIdentity {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    ClockIdentity(w)
}

/// A TimeInterval (ns × 2^16, signed) in ns.
fn time_interval_ns(b: &[u8], at: usize) -> f64 {
    be64(b, at) as i64 as f64 / 65_536.0
}

/// Decodes one datagram from the daemon: a RESPONSE with a MANAGEMENT
/// TLV (its data set decoded when it is one a sample uses) or a
/// MANAGEMENT_ERROR_STATUS TLV. Bytes past `messageLength` are ignored.
pub fn decode(b: &[u8]) -> Result<Response, DecodeError> {
    if b.len() < MANAGEMENT_LEN + 4 {
        return Err(DecodeError::Short(b.len()));
    }
    if b[0] & 0x0F != MESSAGE_MANAGEMENT {
        return Err(DecodeError::NotManagement(b[0] & 0x0F));
    }
    if b[1] & 0x0F != VERSION {
        return Err(DecodeError::Version(b[1] & 0x0F));
    }
    let said = usize::from(be16(b, 2));
    if said > b.len() || said < MANAGEMENT_LEN + 4 {
        return Err(DecodeError::Length { said, got: b.len() });
    }
    let b = &b[..said];
    let action = b[46] & 0x0F;
    if action != ACTION_RESPONSE {
        return Err(DecodeError::NotResponse(action));
    }
    let source = PortIdentity {
        clock: identity(b, 20),
        port: be16(b, 28),
    };
    let sequence_id = be16(b, 30);
    let kind = be16(b, 48);
    let len = usize::from(be16(b, 50));
    let tlv_end = MANAGEMENT_LEN + 4 + len;
    let too_short = match kind {
        TLV_MANAGEMENT => len < 2,
        TLV_MANAGEMENT_ERROR_STATUS => len < 8,
        other => return Err(DecodeError::TlvType(other)),
    };
    if too_short || tlv_end > b.len() {
        return Err(DecodeError::Tlv { kind, len });
    }
    if kind == TLV_MANAGEMENT_ERROR_STATUS {
        let id = be16(b, 54);
        return Ok(Response {
            source,
            sequence_id,
            id,
            body: Body::Error {
                error: be16(b, 52),
                id,
            },
        });
    }
    let id = be16(b, 52);
    Ok(Response {
        source,
        sequence_id,
        id,
        body: Body::Data(data_set(id, &b[54..tlv_end])?),
    })
}

/// The data set of management id `id` in a response's TLV data `data`,
/// checked long enough for what is read of it.
fn data_set(id: u16, data: &[u8]) -> Result<DataSet, DecodeError> {
    let need = match id {
        ID_DEFAULT_DATA_SET => DEFAULT_DATA_SET_LEN,
        ID_CURRENT_DATA_SET => CURRENT_DATA_SET_LEN,
        ID_PORT_DATA_SET => PORT_DATA_SET_LEN,
        ID_TIME_STATUS_NP => TIME_STATUS_NP_LEN,
        _ => 0,
    };
    if data.len() < need {
        return Err(DecodeError::DataSet {
            id,
            got: data.len(),
            need,
        });
    }
    Ok(match id {
        ID_DEFAULT_DATA_SET => DataSet::Default(DefaultDataSet {
            number_ports: be16(data, 2),
            clock_identity: identity(data, 10),
            domain: data[18],
        }),
        ID_CURRENT_DATA_SET => DataSet::Current(CurrentDataSet {
            steps_removed: be16(data, 0),
            offset_from_master_ns: time_interval_ns(data, 2),
            mean_path_delay_ns: time_interval_ns(data, 10),
        }),
        ID_PORT_DATA_SET => DataSet::Port(PortDataSet {
            port: PortIdentity {
                clock: identity(data, 0),
                port: be16(data, 8),
            },
            state: PortState::from_u8(data[10]),
        }),
        ID_TIME_STATUS_NP => DataSet::TimeStatus(TimeStatus {
            master_offset_ns: be64(data, 0) as i64,
            ingress_time_ns: be64(data, 8) as i64,
            gm_present: u32::from_be_bytes([data[38], data[39], data[40], data[41]]) != 0,
            gm_identity: identity(data, 42),
        }),
        other => DataSet::Other(other),
    })
}

/// What this clock is to PTP at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// It follows a grandmaster and its servo has locked.
    Slave,
    /// It is the grandmaster: the reference the other side's servo
    /// measures its offset against (its own offset is 0).
    Grandmaster,
    /// Neither: no grandmaster, or the servo has not locked.
    Unlocked,
}

/// The servo's state at one moment: the four data sets of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The answering clock.
    pub clock_identity: ClockIdentity,
    /// `TIME_STATUS_NP`.
    pub time: TimeStatus,
    /// `CURRENT_DATA_SET`.
    pub current: CurrentDataSet,
    /// Every port's state, in the order they answered.
    pub ports: Vec<PortDataSet>,
}

impl Sample {
    /// Slave: a grandmaster is present and a port is `SLAVE`.
    /// Grandmaster: the grandmaster is this clock and a port is `MASTER`
    /// (or `GRAND_MASTER`), none `SLAVE` or `UNCALIBRATED`. Else unlocked.
    pub fn role(&self) -> Role {
        let any = |s: PortState| self.ports.iter().any(|p| p.state == s);
        if self.time.gm_present && any(PortState::Slave) {
            Role::Slave
        } else if !self.time.gm_present
            && self.time.gm_identity == self.clock_identity
            && (any(PortState::Master) || any(PortState::GrandMaster))
            && !any(PortState::Slave)
            && !any(PortState::Uncalibrated)
        {
            Role::Grandmaster
        } else {
            Role::Unlocked
        }
    }

    /// Why the servo is not locked, in words (`None` when it is).
    pub fn not_locked(&self) -> Option<String> {
        if self.role() != Role::Unlocked {
            return None;
        }
        let ports = if self.ports.is_empty() {
            "no port".to_string()
        } else {
            (self.ports.iter())
                .map(|p| format!("port {} {}", p.port.port, p.state.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let gm = if self.time.gm_present {
            format!("grandmaster {}", self.time.gm_identity)
        } else {
            "no grandmaster".to_string()
        };
        Some(format!("{ports}, {gm}: the servo has not locked"))
    }

    /// Each port's state, as `pmc` names them.
    pub fn port_states(&self) -> Vec<String> {
        self.ports.iter().map(|p| p.state.name()).collect()
    }
}

/// The answers to one sample's requests (sequence numbers `first` to
/// `first + 3`, in [`SAMPLE_IDS`]' order) as they arrive.
#[derive(Debug, Clone)]
pub struct Collector {
    first: u16,
    default: Option<DefaultDataSet>,
    time: Option<TimeStatus>,
    current: Option<CurrentDataSet>,
    ports: Vec<PortDataSet>,
    /// `PORT_DATA_SET` was refused (a clock without ports says so).
    ports_refused: bool,
    refused: Option<String>,
}

impl Collector {
    /// Waits for the answers to the requests numbered from `first`.
    pub fn new(first: u16) -> Self {
        Collector {
            first,
            default: None,
            time: None,
            current: None,
            ports: Vec::new(),
            ports_refused: false,
            refused: None,
        }
    }

    /// Takes one response; one that answers no request of this sample
    /// (an earlier sample's late answer) is dropped.
    pub fn take(&mut self, r: &Response) {
        let ours = (0u16..)
            .zip(SAMPLE_IDS)
            .any(|(k, id)| id == r.id && r.sequence_id == self.first.wrapping_add(k));
        if !ours {
            return;
        }
        match r.body {
            Body::Error { id, .. } if id == ID_PORT_DATA_SET => self.ports_refused = true,
            Body::Error { error, id } => {
                self.refused.get_or_insert(format!(
                    "refused GET {}: management error 0x{error:04X}",
                    id_name(id)
                ));
            }
            Body::Data(DataSet::Default(d)) => self.default = Some(d),
            Body::Data(DataSet::TimeStatus(t)) => self.time = Some(t),
            Body::Data(DataSet::Current(c)) => self.current = Some(c),
            Body::Data(DataSet::Port(p)) => {
                if !self.ports.iter().any(|q| q.port == p.port) {
                    self.ports.push(p);
                }
            }
            Body::Data(DataSet::Other(_)) => {}
        }
    }

    /// Every answer is in (or a refusal ends the sample).
    pub fn done(&self) -> bool {
        if self.refused.is_some() {
            return true;
        }
        let Some(d) = self.default else { return false };
        self.time.is_some()
            && self.current.is_some()
            && (self.ports_refused || self.ports.len() >= usize::from(d.number_ports))
    }

    /// The sample, or what is missing from it.
    pub fn finish(self) -> Result<Sample, String> {
        if let Some(r) = self.refused {
            return Err(r);
        }
        let missing: Vec<&str> = [
            (self.default.is_none(), "DEFAULT_DATA_SET"),
            (self.time.is_none(), "TIME_STATUS_NP"),
            (self.current.is_none(), "CURRENT_DATA_SET"),
        ]
        .iter()
        .filter(|m| m.0)
        .map(|m| m.1)
        .collect();
        match (self.default, self.time, self.current) {
            (Some(d), Some(time), Some(current)) => Ok(Sample {
                clock_identity: d.clock_identity,
                time,
                current,
                ports: self.ports,
            }),
            _ => Err(format!("no answer to GET {}", missing.join(", "))),
        }
    }
}

/// What a run saw of the PTP servo over its samples (JSON
/// `tx.clock.servo`, `rx.clock.servo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServoRecord {
    /// The daemon: `ptp4l`.
    pub daemon: String,
    /// Its management socket.
    pub socket: String,
    /// Samples answered.
    pub samples: u64,
    /// Samples it did not answer (the daemon gone or stalled).
    pub unanswered: u64,
    /// Every sample answered and locked (as a slave or the grandmaster).
    pub locked: bool,
    /// The role at the last answered sample.
    pub role: Role,
    /// The first reason the servo was not locked or not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_locked: Option<String>,
    /// The clock's identity (`5ad2a5.fffe.5804bc`).
    pub clock_identity: String,
    /// The grandmaster's identity at the last sample.
    pub gm_identity: String,
    /// Each port's state at the last sample.
    pub port_states: Vec<String>,
    /// Largest |offset from the master| of the samples, ns.
    pub max_abs_offset_ns: f64,
    /// Largest mean path delay of the samples, ns: the most a path's
    /// asymmetry can move the true offset from the measured one.
    pub max_path_delay_ns: f64,
    /// The offset at the last sample, ns.
    pub last_offset_ns: f64,
}

impl ServoRecord {
    /// A record of `daemon` at `socket` with no sample yet.
    pub fn new(daemon: &str, socket: &str) -> Self {
        ServoRecord {
            daemon: daemon.into(),
            socket: socket.into(),
            samples: 0,
            unanswered: 0,
            locked: false,
            role: Role::Unlocked,
            not_locked: None,
            clock_identity: String::new(),
            gm_identity: String::new(),
            port_states: Vec::new(),
            max_abs_offset_ns: 0.0,
            max_path_delay_ns: 0.0,
            last_offset_ns: 0.0,
        }
    }

    /// Adds one sample's outcome: a sample, or why there was none.
    pub fn add(&mut self, s: Result<&Sample, &str>) {
        let s = match s {
            Ok(s) => s,
            Err(why) => {
                self.unanswered += 1;
                self.locked = false;
                self.not_locked
                    .get_or_insert_with(|| format!("a sample failed: {why}"));
                return;
            }
        };
        let role = s.role();
        self.locked = role != Role::Unlocked && (self.samples == 0 || self.locked);
        self.locked &= self.unanswered == 0;
        if let Some(why) = s.not_locked() {
            self.not_locked.get_or_insert(why);
        }
        self.samples += 1;
        self.role = role;
        self.clock_identity = s.clock_identity.to_string();
        self.gm_identity = s.time.gm_identity.to_string();
        self.port_states = s.port_states();
        let offset = s.time.master_offset_ns as f64;
        self.last_offset_ns = offset;
        self.max_abs_offset_ns = self.max_abs_offset_ns.max(offset.abs());
        self.max_path_delay_ns = self
            .max_path_delay_ns
            .max(s.current.mean_path_delay_ns.abs());
    }

    /// The servo's share of the clock's error, ns: the largest offset
    /// seen plus the largest path delay (its asymmetry bound).
    pub fn error_ns(&self) -> f64 {
        self.max_abs_offset_ns + self.max_path_delay_ns
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Hex to bytes.
    pub(crate) fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    // Captured from ptp4l 3.1.1 (software timestamping, L2 on a veth
    // pair, the slave with free_running 1), answering this module's GETs.
    /// The slave's TIME_STATUS_NP, port UNCALIBRATED: offset -137 ns.
    pub(crate) const SLAVE_TIME_STATUS: &str = "0d02006800000000000000000000000000000000ae3c3cfffe79af0400000000047f00000000000000005aa40000020000010034c000ffffffffffffff7718ed5c5abe987f7d00000000000000000000000000000000000000000000000000015ad2a5fffe5804bc";
    /// The slave's CURRENT_DATA_SET: offset -137 ns, path delay 2369 ns.
    pub(crate) const SLAVE_CURRENT: &str = "0d02004800000000000000000000000000000000ae3c3cfffe79af0400000001047f00000000000000005aa4000002000001001420010001ffffffffff7700000000000009410000";
    /// The slave's PORT_DATA_SET: port 1 UNCALIBRATED.
    pub(crate) const SLAVE_PORT_UNCALIBRATED: &str = "0d02005000000000000000000000000000000000ae3c3cfffe79af0400010002047f00000000000000005aa4000002000001001c2004ae3c3cfffe79af04000108000000000000000000ff03fe010002";
    /// The slave's DEFAULT_DATA_SET: one port, slaveOnly.
    pub(crate) const SLAVE_DEFAULT: &str = "0d02004a00000000000000000000000000000000ae3c3cfffe79af0400000003047f00000000000000005aa4000002000001001620000300000180fffeffff80ae3c3cfffe79af040000";
    /// The same slave locked: port 1 SLAVE (sequence 2).
    pub(crate) const SLAVE_PORT_LOCKED: &str = "0d02005000000000000000000000000000000000ae3c3cfffe79af0400010002047f00000000000000005ddc000002000001001c2004ae3c3cfffe79af04000109000000000000000000ff03fe010002";
    /// The master's TIME_STATUS_NP: no grandmaster but itself.
    pub(crate) const MASTER_TIME_STATUS: &str = "0d020068000000000000000000000000000000005ad2a5fffe5804bc00000000047f00000000000000005af80000020000010034c0000000000000000000000000000000000000000000000000000000000000000000000000000000000000005ad2a5fffe5804bc";
    /// The master's CURRENT_DATA_SET: all zero.
    pub(crate) const MASTER_CURRENT: &str = "0d020048000000000000000000000000000000005ad2a5fffe5804bc00000001047f00000000000000005af800000200000100142001000000000000000000000000000000000000";
    /// The master's PORT_DATA_SET: port 1 MASTER.
    pub(crate) const MASTER_PORT: &str = "0d020050000000000000000000000000000000005ad2a5fffe5804bc00010002047f00000000000000005af8000002000001001c20045ad2a5fffe5804bc000106000000000000000000ff03fe010002";
    /// The master's DEFAULT_DATA_SET.
    pub(crate) const MASTER_DEFAULT: &str = "0d02004a000000000000000000000000000000005ad2a5fffe5804bc00000003047f00000000000000005af8000002000001001620000100000101f8feffff805ad2a5fffe5804bc0000";
    /// The master refusing GET of id 0x1234 (NO_SUCH_ID), from port 1.
    pub(crate) const MASTER_NO_SUCH_ID: &str = "0d02003c000000000000000000000000000000005ad2a5fffe5804bc00010004047f00000000000000005af800000200000200080002123400000000";

    const SLAVE_ID: ClockIdentity = ClockIdentity([0xae, 0x3c, 0x3c, 0xff, 0xfe, 0x79, 0xaf, 0x04]);
    const MASTER_ID: ClockIdentity =
        ClockIdentity([0x5a, 0xd2, 0xa5, 0xff, 0xfe, 0x58, 0x04, 0xbc]);

    fn d(h: &str) -> Response {
        decode(&hex(h)).unwrap()
    }

    /// A sample of the given captures, sequence numbers from 0.
    fn sample(captures: &[&str]) -> Result<Sample, String> {
        let mut c = Collector::new(0);
        for h in captures {
            c.take(&d(h));
        }
        assert!(c.done());
        c.finish()
    }

    #[test]
    fn a_get_request_has_exact_bytes() {
        let m = get_request(0x0102, 0x597c, ID_TIME_STATUS_NP);
        let want = hex(concat!(
            "0d020036000000000000000000000000000000000000000000000000597c0102047f",
            "ffffffffffffffffffff00000000",
            "00010002c000"
        ));
        assert_eq!(m.to_vec(), want);
    }

    #[test]
    fn a_captured_time_status_decodes_exactly() {
        let r = d(SLAVE_TIME_STATUS);
        assert_eq!(
            r.source,
            PortIdentity {
                clock: SLAVE_ID,
                port: 0
            }
        );
        assert_eq!((r.sequence_id, r.id), (0, ID_TIME_STATUS_NP));
        assert_eq!(
            r.body,
            Body::Data(DataSet::TimeStatus(TimeStatus {
                master_offset_ns: -137,
                ingress_time_ns: 0x18ed_5c5a_be98_7f7d,
                gm_present: true,
                gm_identity: MASTER_ID,
            }))
        );
        assert_eq!(MASTER_ID.to_string(), "5ad2a5.fffe.5804bc");
        let Body::Data(DataSet::TimeStatus(m)) = d(MASTER_TIME_STATUS).body else {
            panic!("not a time status");
        };
        assert_eq!((m.master_offset_ns, m.gm_present), (0, false));
        assert_eq!(m.gm_identity, MASTER_ID);
    }

    #[test]
    fn captured_data_sets_decode_exactly() {
        assert_eq!(
            d(SLAVE_CURRENT).body,
            Body::Data(DataSet::Current(CurrentDataSet {
                steps_removed: 1,
                offset_from_master_ns: -137.0,
                mean_path_delay_ns: 2369.0,
            }))
        );
        let port = d(SLAVE_PORT_UNCALIBRATED);
        assert_eq!((port.source.port, port.sequence_id), (1, 2));
        assert_eq!(
            port.body,
            Body::Data(DataSet::Port(PortDataSet {
                port: PortIdentity {
                    clock: SLAVE_ID,
                    port: 1
                },
                state: PortState::Uncalibrated,
            }))
        );
        assert_eq!(
            d(SLAVE_DEFAULT).body,
            Body::Data(DataSet::Default(DefaultDataSet {
                number_ports: 1,
                clock_identity: SLAVE_ID,
                domain: 0,
            }))
        );
        assert_eq!(
            d(MASTER_NO_SUCH_ID).body,
            Body::Error {
                error: 0x0002,
                id: 0x1234
            }
        );
    }

    #[test]
    fn a_slave_locks_once_its_port_is_slave() {
        let s = sample(&[
            SLAVE_DEFAULT,
            SLAVE_TIME_STATUS,
            SLAVE_CURRENT,
            SLAVE_PORT_UNCALIBRATED,
        ])
        .unwrap();
        assert_eq!(s.role(), Role::Unlocked);
        assert_eq!(
            s.not_locked().unwrap(),
            "port 1 UNCALIBRATED, grandmaster 5ad2a5.fffe.5804bc: the servo has not locked"
        );
        let locked = sample(&[
            SLAVE_PORT_LOCKED,
            SLAVE_CURRENT,
            SLAVE_TIME_STATUS,
            SLAVE_DEFAULT,
        ])
        .unwrap();
        assert_eq!(locked.role(), Role::Slave);
        assert_eq!(locked.not_locked(), None);
        let mut rec = ServoRecord::new("ptp4l", "/run/ptp4l");
        rec.add(Ok(&locked));
        assert!(rec.locked);
        assert_eq!(
            (rec.max_abs_offset_ns, rec.max_path_delay_ns, rec.error_ns()),
            (137.0, 2369.0, 2506.0)
        );
        assert_eq!(rec.gm_identity, "5ad2a5.fffe.5804bc");
        assert_eq!(rec.clock_identity, "ae3c3c.fffe.79af04");
        assert_eq!(rec.port_states, ["SLAVE"]);
        // One unlocked sample unlocks the run, for good.
        rec.add(Ok(&s));
        rec.add(Ok(&locked));
        assert!(!rec.locked);
        assert_eq!(rec.samples, 3);
        assert_eq!(rec.role, Role::Slave);
        assert!(rec.not_locked.as_deref().unwrap().contains("UNCALIBRATED"));
    }

    #[test]
    fn the_grandmaster_is_locked_with_no_offset() {
        let s = sample(&[
            MASTER_DEFAULT,
            MASTER_TIME_STATUS,
            MASTER_CURRENT,
            MASTER_PORT,
        ])
        .unwrap();
        assert_eq!(s.role(), Role::Grandmaster);
        let mut rec = ServoRecord::new("ptp4l", "/run/ptp4l");
        rec.add(Ok(&s));
        assert!(rec.locked);
        assert_eq!(rec.error_ns(), 0.0);
        // A sample that failed unlocks the run.
        rec.add(Err("no answer in 100 ms"));
        assert!(!rec.locked);
        assert_eq!((rec.samples, rec.unanswered), (1, 1));
        assert_eq!(
            rec.not_locked.as_deref(),
            Some("a sample failed: no answer in 100 ms")
        );
        rec.add(Ok(&s));
        assert!(!rec.locked, "a failed sample is not forgotten");
    }

    #[test]
    fn a_sample_is_done_when_every_port_answered() {
        let mut c = Collector::new(0);
        for h in [SLAVE_DEFAULT, SLAVE_TIME_STATUS, SLAVE_CURRENT] {
            c.take(&d(h));
            assert!(!c.done());
        }
        // An earlier sample's answer (another sequence number) is dropped.
        let mut late = hex(SLAVE_PORT_UNCALIBRATED);
        late[31] = 9;
        c.take(&decode(&late).unwrap());
        assert!(!c.done());
        c.take(&d(SLAVE_PORT_UNCALIBRATED));
        assert!(c.done());
        let mut c = Collector::new(0);
        c.take(&d(SLAVE_DEFAULT));
        assert_eq!(
            c.finish().unwrap_err(),
            "no answer to GET TIME_STATUS_NP, CURRENT_DATA_SET"
        );
        // A refused TIME_STATUS_NP ends the sample.
        let mut refused = hex(MASTER_NO_SUCH_ID);
        refused[31] = 0;
        refused[54..56].copy_from_slice(&ID_TIME_STATUS_NP.to_be_bytes());
        let mut c = Collector::new(0);
        c.take(&decode(&refused).unwrap());
        assert!(c.done());
        assert_eq!(
            c.finish().unwrap_err(),
            "refused GET TIME_STATUS_NP: management error 0x0002"
        );
    }

    #[test]
    fn bad_datagrams_are_refused_with_their_reason() {
        let good = hex(SLAVE_TIME_STATUS);
        assert_eq!(decode(&good[..51]), Err(DecodeError::Short(51)));
        let mut b = good.clone();
        b[0] = 0x00;
        assert_eq!(decode(&b), Err(DecodeError::NotManagement(0)));
        let mut b = good.clone();
        b[1] = 0x01;
        assert_eq!(decode(&b), Err(DecodeError::Version(1)));
        assert_eq!(
            decode(&good[..103]),
            Err(DecodeError::Length {
                said: 104,
                got: 103
            })
        );
        let mut b = good.clone();
        b[46] = ACTION_GET;
        assert_eq!(decode(&b), Err(DecodeError::NotResponse(0)));
        let mut b = good.clone();
        b[51] = 0x35;
        assert_eq!(
            decode(&b),
            Err(DecodeError::Tlv {
                kind: TLV_MANAGEMENT,
                len: 0x35
            })
        );
        let mut b = good.clone();
        b[49] = 3;
        assert_eq!(decode(&b), Err(DecodeError::TlvType(3)));
        let mut b = good.clone();
        b[51] = 0x33;
        assert_eq!(
            decode(&b),
            Err(DecodeError::DataSet {
                id: ID_TIME_STATUS_NP,
                got: 49,
                need: 50
            })
        );
        assert_eq!(
            DecodeError::DataSet {
                id: ID_TIME_STATUS_NP,
                got: 49,
                need: 50
            }
            .to_string(),
            "TIME_STATUS_NP of 49 bytes, shorter than its 50"
        );
        // Bytes past messageLength are ignored.
        let mut b = good.clone();
        b.extend_from_slice(&[0xAA; 7]);
        assert_eq!(decode(&b), decode(&good));
    }
}
