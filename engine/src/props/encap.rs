//! The encapsulation headers (MPLS label stacks, VXLAN, GRE) on any bytes:
//! a header or a refusal, never a panic; what is written reads back the
//! same, and a GRE checksum verifies over any payload.

use proptest::prelude::*;

use crate::wire::gre::GreRepr;
use crate::wire::mpls::{MplsLabel, MplsRepr, LABEL_MAX, MAX_LABELS};
use crate::wire::vxlan::{VxlanHeader, VxlanRepr, VNI_MAX};

fn label() -> impl Strategy<Value = MplsLabel> {
    (0..=LABEL_MAX, 0u8..8, any::<u8>()).prop_map(|(label, tc, ttl)| MplsLabel { label, tc, ttl })
}

proptest! {
    #![proptest_config(super::config(512))]

    /// Any bytes: each parser gives a header that fits them, or refuses.
    #[test]
    fn any_bytes_parse_or_are_refused(b in proptest::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(s) = MplsRepr::parse(&b) {
            prop_assert!(!s.labels.is_empty() && s.header_len() <= b.len() && s.labels.len() <= MAX_LABELS);
        }
        if let Ok(h) = VxlanHeader::new_checked(&b[..]) {
            if let Ok(v) = VxlanRepr::parse(&h) {
                prop_assert!(v.vni <= VNI_MAX);
            }
        }
        if let Ok(g) = GreRepr::parse(&b) {
            prop_assert!(g.header_len() <= b.len());
        }
    }

    /// What is written reads back the same.
    #[test]
    fn written_headers_read_back(
        labels in proptest::collection::vec(label(), 1..=MAX_LABELS),
        vni in 0..=VNI_MAX,
        protocol: u16,
        checksum: bool,
        key: Option<u32>,
        seq: Option<u32>,
        payload in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let stack = MplsRepr { labels };
        let mut b = vec![0u8; stack.header_len()];
        stack.emit(&mut b);
        prop_assert_eq!(MplsRepr::parse(&b).unwrap(), stack);

        let mut b = [0u8; 8];
        VxlanRepr { vni }.emit(&mut VxlanHeader::new_unchecked(&mut b[..]));
        prop_assert_eq!(VxlanRepr::parse(&VxlanHeader::new_unchecked(&b[..])).unwrap(), VxlanRepr { vni });

        let g = GreRepr { protocol, checksum, key, seq };
        let mut b = vec![0u8; g.header_len()];
        b.extend_from_slice(&payload);
        g.emit(&mut b);
        prop_assert_eq!(GreRepr::parse(&b).unwrap(), g);
    }
}
