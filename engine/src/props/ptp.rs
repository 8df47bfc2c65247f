//! The decoder of `ptp4l`'s management responses (`clock::ptp`) on
//! responses captured from a real `ptp4l`, with their fields rewritten,
//! bytes flipped, lengths changed, cut or grown; and arbitrary bytes.

use proptest::prelude::*;

use crate::clock::ptp::tests::{
    hex, MASTER_CURRENT, MASTER_DEFAULT, MASTER_NO_SUCH_ID, MASTER_PORT, MASTER_TIME_STATUS,
    SLAVE_CURRENT, SLAVE_DEFAULT, SLAVE_PORT_LOCKED, SLAVE_PORT_UNCALIBRATED, SLAVE_TIME_STATUS,
};
use crate::clock::ptp::{
    decode, Body, ClockIdentity, Collector, DataSet, PortState, Response, ServoRecord,
};

/// Every captured response.
const CAPTURES: [&str; 10] = [
    SLAVE_TIME_STATUS,
    SLAVE_CURRENT,
    SLAVE_PORT_UNCALIBRATED,
    SLAVE_DEFAULT,
    SLAVE_PORT_LOCKED,
    MASTER_TIME_STATUS,
    MASTER_CURRENT,
    MASTER_PORT,
    MASTER_DEFAULT,
    MASTER_NO_SUCH_ID,
];

/// Decodes `b` and carries the result as far as a run would: into a
/// sample with the other captures and into a run's record. Never panics;
/// an error is one line; a record's error is finite and not negative.
pub(super) fn check_bytes(b: &[u8]) -> Option<Response> {
    let r = match decode(b) {
        Ok(r) => r,
        Err(e) => {
            super::assert_one_line("ptp decode", &e.to_string());
            return None;
        }
    };
    if let Body::Data(DataSet::Current(c)) = r.body {
        assert!(c.offset_from_master_ns.is_finite() && c.mean_path_delay_ns.is_finite());
    }
    // In place of its capture in a sample of the slave's answers.
    let mut c = Collector::new(r.sequence_id.wrapping_sub(sample_index(r.id)));
    c.take(&r);
    for h in [
        SLAVE_TIME_STATUS,
        SLAVE_CURRENT,
        SLAVE_PORT_LOCKED,
        SLAVE_DEFAULT,
    ] {
        let other = decode(&hex(h)).expect("a capture decodes");
        if other.id != r.id {
            let mut o = other;
            o.sequence_id = r
                .sequence_id
                .wrapping_sub(sample_index(r.id))
                .wrapping_add(sample_index(o.id));
            c.take(&o);
        }
    }
    let mut rec = ServoRecord::new("ptp4l", "fuzz");
    match c.finish() {
        Ok(s) => {
            if let Some(why) = s.not_locked() {
                super::assert_one_line("not locked", &why);
            }
            rec.add(Ok(&s));
        }
        Err(e) => {
            super::assert_one_line("sample", &e);
            rec.add(Err(e.as_str()));
        }
    }
    assert!(
        rec.error_ns().is_finite() && rec.error_ns() >= 0.0,
        "{rec:?}"
    );
    Some(r)
}

/// Where `id` is in a sample's requests (0 for any other id).
fn sample_index(id: u16) -> u16 {
    (0u16..)
        .zip(crate::clock::ptp::SAMPLE_IDS)
        .find(|(_, i)| *i == id)
        .map_or(0, |(k, _)| k)
}

fn capture() -> impl Strategy<Value = Vec<u8>> {
    (0..CAPTURES.len()).prop_map(|i| hex(CAPTURES[i]))
}

proptest! {
    #![proptest_config(super::config(256))]

    /// A captured TIME_STATUS_NP with its fields set to anything decodes
    /// to exactly those fields.
    #[test]
    fn time_status_fields_round_trip(
        offset: i64, ingress: i64, present: u32, gm: [u8; 8], seq: u16,
    ) {
        let mut b = hex(SLAVE_TIME_STATUS);
        b[30..32].copy_from_slice(&seq.to_be_bytes());
        b[54..62].copy_from_slice(&offset.to_be_bytes());
        b[62..70].copy_from_slice(&ingress.to_be_bytes());
        b[92..96].copy_from_slice(&present.to_be_bytes());
        b[96..104].copy_from_slice(&gm);
        let r = check_bytes(&b).expect("decodes");
        prop_assert_eq!(r.sequence_id, seq);
        let Body::Data(DataSet::TimeStatus(t)) = r.body else { panic!("{r:?}") };
        prop_assert_eq!(
            (t.master_offset_ns, t.ingress_time_ns, t.gm_present, t.gm_identity),
            (offset, ingress, present != 0, ClockIdentity(gm))
        );
    }

    /// A captured CURRENT_DATA_SET and PORT_DATA_SET likewise.
    #[test]
    fn data_set_fields_round_trip(steps: u16, offset: i64, delay: i64, state: u8, port: u16) {
        let mut b = hex(SLAVE_CURRENT);
        b[54..56].copy_from_slice(&steps.to_be_bytes());
        b[56..64].copy_from_slice(&offset.to_be_bytes());
        b[64..72].copy_from_slice(&delay.to_be_bytes());
        let r = check_bytes(&b).expect("decodes");
        let Body::Data(DataSet::Current(c)) = r.body else { panic!("{r:?}") };
        prop_assert_eq!(c.steps_removed, steps);
        prop_assert_eq!(c.offset_from_master_ns, offset as f64 / 65_536.0);
        prop_assert_eq!(c.mean_path_delay_ns, delay as f64 / 65_536.0);
        let mut b = hex(SLAVE_PORT_LOCKED);
        b[62..64].copy_from_slice(&port.to_be_bytes());
        b[64] = state;
        let r = check_bytes(&b).expect("decodes");
        let Body::Data(DataSet::Port(p)) = r.body else { panic!("{r:?}") };
        prop_assert_eq!((p.port.port, p.state), (port, PortState::from_u8(state)));
    }

    /// Captures damaged anywhere, their lengths rewritten, cut or grown:
    /// no panic, an error on one line.
    #[test]
    fn damaged_responses_never_panic(
        b in capture(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        lengths in proptest::option::of((any::<u16>(), any::<u16>())),
        cut in proptest::option::of(any::<usize>()),
        tail in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut b = b;
        for (at, v) in flips {
            let n = b.len();
            b[at % n] = v;
        }
        if let Some((msg, tlv)) = lengths {
            b[2..4].copy_from_slice(&msg.to_be_bytes());
            b[50..52].copy_from_slice(&tlv.to_be_bytes());
        }
        if let Some(c) = cut {
            b.truncate(c % (b.len() + 1));
        }
        b.extend_from_slice(&tail);
        check_bytes(&b);
    }

    /// Anything at all.
    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_bytes(&b);
    }
}
