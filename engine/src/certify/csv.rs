//! The CSV of a certification: one file, one header, a line per result
//! (per point of a loss curve), per test, direction and size not measured
//! (`not_measured`, why in the `reason` column), per acceptance
//! criterion, per trial, per direction of a trial in which every
//! direction sent at once (`trial_direction`, numbered as its trial),
//! per row of the device's latency (`device`, with a tester baseline),
//! per bucket of a latency histogram (`histogram`), per fact of the
//! tester's setup (`setup`), per setting below RFC 2544's
//! (`nonconformant`), and last the verdict (`verdict`), told apart by
//! the `test` and `kind` columns. Quoted as RFC 4180 says (CRLF line
//! ends; a field holding a comma, a quote or a line break is quoted, its
//! quotes doubled). Its figures are the [`format`] records' plain text:
//! numbers a program reads (no thousands separator, no unit: bit rates in
//! bit/s, latencies in ns), rounded as the HTML report rounds them.
//!
//! Columns: `test` (`throughput`, `latency`, `loss`, `back_to_back`,
//! `recovery`, `reset`, or `certification` for the setup, nonconformant
//! and verdict lines),
//! `kind` (see [`format::Kind::key`]), `direction` and `frame_size`
//! (empty on a line of the whole certification), then every [`Column`]
//! by its name; a column that does not apply to a line is empty.

use super::format::{self, Column, Record};
use super::model::{Certification, Size};

/// The CSV of `c`.
pub fn render(c: &Certification) -> String {
    let mut out = String::new();
    let mut header: Vec<&str> = vec!["test", "kind", "direction", "frame_size"];
    header.extend(Column::ALL.iter().map(|col| col.name()));
    line(&mut out, header.iter().copied());
    let records = format::results(c)
        .into_iter()
        .chain(format::not_measured(c))
        .chain(format::criteria(c))
        .chain(format::trials(c))
        .chain(format::direction_trials(c))
        .chain(format::device_latency(c))
        .chain(format::histograms(c))
        .chain(format::setup(c))
        .chain(format::deviations(c))
        .chain([format::verdict(c)]);
    for r in records {
        record(&mut out, &r);
    }
    out
}

fn record(out: &mut String, r: &Record) {
    let size = match r.test {
        Some(_) => Size(r.frame_size).to_string(),
        None => String::new(),
    };
    let mut fields: Vec<&str> = vec![r.test_key(), r.kind.key(), &r.direction, &size];
    fields.extend(Column::ALL.iter().map(|col| r.get(*col).unwrap_or("")));
    line(out, fields.into_iter());
}

fn line<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        quote(out, field);
    }
    out.push_str("\r\n");
}

/// `field` as RFC 4180 writes it.
fn quote(out: &mut String, field: &str) {
    if field.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::format::Format;
    use crate::certify::sample;

    fn read(csv: &str) -> (Vec<String>, Vec<::csv::StringRecord>) {
        let mut r = ::csv::Reader::from_reader(csv.as_bytes());
        let header = r.headers().unwrap().iter().map(String::from).collect();
        (header, r.records().map(|x| x.unwrap()).collect())
    }

    #[test]
    fn one_header_a_line_per_result_criterion_and_trial() {
        let c = sample::complete();
        let csv = render(&c);
        assert!(csv.ends_with("\r\n"));
        assert_eq!(csv.matches("\r\n").count(), csv.matches('\n').count());
        let (header, lines) = read(&csv);
        assert_eq!(
            header[..6],
            [
                "test",
                "kind",
                "direction",
                "frame_size",
                "trial",
                "rate_pct"
            ]
        );
        assert_eq!(header.len(), 4 + Column::ALL.len());
        let n = |kind: &str| lines.iter().filter(|l| &l[1] == kind).count();
        assert_eq!(n("result"), format::results(&c).len());
        assert_eq!(n("criterion"), 4);
        assert_eq!(n("trial"), format::trials(&c).len());
        assert!(lines.iter().all(|l| l.len() == header.len()));
        let first = &lines[0];
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert_eq!(&first[0], "throughput");
        assert_eq!(&first[col("rate_pct")], "53.71");
        assert_eq!(&first[col("fps")], "7992699");
        assert_eq!(&first[col("loss_pct")], "");
    }

    /// The CSV's figures are the JSON's, rounded by the one rule.
    #[test]
    fn figures_are_the_json_s_rounded() {
        let c = sample::tester_bound();
        let json: serde_json::Value = serde_json::to_value(&c).unwrap();
        let (header, lines) = read(&render(&c));
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let rows = lines
            .iter()
            .filter(|l| &l[0] == "throughput" && &l[1] == "result");
        let f = Format::new(c.settings.resolution_pct);
        let mut n = 0;
        for (line, row) in rows.zip(json["throughput"].as_array().unwrap()) {
            let rate = row["rate_pct"].as_f64().unwrap();
            assert_eq!(&line[col("rate_pct")], f.pct(rate));
            let csv_rate: f64 = line[col("rate_pct")].parse().unwrap();
            assert!((csv_rate - rate).abs() <= 0.005);
            let fps: f64 = line[col("fps")].parse().unwrap();
            assert!((fps - row["fps"].as_f64().unwrap()).abs() <= 0.5);
            let l2: f64 = line[col("l2_bps")].parse().unwrap();
            assert!((l2 - row["l2_bps"].as_f64().unwrap()).abs() <= 0.5);
            assert_eq!(&line[col("bound")], row["bound"].as_str().unwrap());
            n += 1;
        }
        assert_eq!(n, 14);
    }

    /// Each direction's share of an aggregate trial is a line of its own,
    /// numbered as its trial; the shares add up to the trial.
    #[test]
    fn a_line_per_direction_of_each_aggregate_trial() {
        let c = sample::bidirectional();
        let (header, lines) = read(&render(&c));
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let shares: Vec<&::csv::StringRecord> = lines
            .iter()
            .filter(|l| &l[1] == "trial_direction")
            .collect();
        let aggregate: Vec<&crate::certify::model::Trial> = c
            .throughput
            .iter()
            .filter(|r| r.direction == "aggregate")
            .flat_map(|r| r.trials.iter())
            .collect();
        assert_eq!(shares.len(), 2 * aggregate.len());
        assert_eq!(shares.len(), format::direction_trials(&c).len());
        let first = &c.throughput[14].trials[0];
        assert_eq!(first.frame_size, 64);
        let d0 = &first.per_direction[0];
        let d1 = &first.per_direction[1];
        assert_eq!(d0.tx_frames + d1.tx_frames, first.tx_frames);
        assert_eq!(d0.lost + d1.lost, first.lost);
        let n = |l: &::csv::StringRecord, k: &str| l[col(k)].parse::<u64>().unwrap();
        let (a, b) = (shares[0], shares[1]);
        assert_eq!(
            (&a[0], &a[2], &a[3], &a[col("trial")]),
            ("throughput", sample::DIRS[0], "64", "1")
        );
        assert_eq!((&b[2], &b[col("trial")]), (sample::DIRS[1], "1"));
        assert_eq!(n(a, "tx_frames"), d0.tx_frames);
        assert_eq!(n(b, "tx_frames"), d1.tx_frames);
        assert_eq!(n(a, "tx_frames") + n(b, "tx_frames"), first.tx_frames);
        assert_eq!(n(a, "lost") + n(b, "lost"), first.lost);
        assert_eq!((n(a, "reordered"), n(b, "reordered")), (0, 5));
        assert_eq!(&a[col("offered_pct")], "100.00");
        assert_eq!(&a[col("p99_ns")], "8171", "2100 + 51.2 + 6020.2");
        assert_eq!(&b[col("p99_ns")], "8321");
        assert_eq!(&a[col("loss_pct")], format::loss_pct(d0.loss_pct));
        assert_eq!(&a[col("passed")], "");
    }

    /// A line per test, direction and size not measured, its reason in
    /// the `reason` column, every figure empty.
    #[test]
    fn a_line_per_entry_not_measured_with_its_reason() {
        let c = sample::no_rate_at_64();
        let (header, lines) = read(&render(&c));
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert!(header.iter().any(|h| h == "reason"));
        let not: Vec<&::csv::StringRecord> =
            lines.iter().filter(|l| &l[1] == "not_measured").collect();
        assert_eq!(not.len(), 1);
        let l = not[0];
        assert_eq!(
            (&l[0], &l[2], &l[3], &l[col("reason")]),
            (
                "latency",
                sample::DIRS[0],
                "64",
                "no throughput rate: none of the 12 throughput trial(s) at this size passed"
            )
        );
        let filled = l.iter().skip(4).filter(|f| !f.is_empty()).count();
        assert_eq!(filled, 1, "only the reason");
        let results = format::results(&c).len();
        assert_eq!(&lines[results][1], "not_measured", "after the results");
        assert_eq!(&lines[results + 1][1], "criterion");
        let (_, complete) = read(&render(&sample::complete()));
        assert!(complete.iter().all(|l| &l[1] != "not_measured"));
        assert!(complete.iter().all(|l| l[col("reason")].is_empty()));
    }

    #[test]
    fn quotes_as_rfc_4180_says() {
        let mut c = sample::complete();
        let odd = "a,b \"c\"\r\nd";
        c.criteria[0].measured = odd.to_string();
        c.criteria[1].direction = "plain".into();
        let csv = render(&c);
        assert!(csv.contains("\"a,b \"\"c\"\"\r\nd\""));
        let (header, lines) = read(&csv);
        let k: Vec<&::csv::StringRecord> = lines.iter().filter(|l| &l[1] == "criterion").collect();
        let measured = header.iter().position(|h| h == "measured").unwrap();
        assert_eq!(&k[0][measured], odd);
        assert_eq!(&k[1][2], "plain");
        let mut s = String::new();
        quote(&mut s, "x");
        quote(&mut s, "\"");
        quote(&mut s, "a\rb");
        quote(&mut s, "a\nb");
        assert_eq!(s, "x\"\"\"\"\"a\rb\"\"a\nb\"");
    }
}
