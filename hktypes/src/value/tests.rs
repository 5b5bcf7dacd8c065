use super::*;
use crate::error::ErrorKind;

/// Items of a hand-made file: run `i` is `runs[i - 1]`, placed at absolute offset 0x1000 * i.
struct TestItems(Vec<(Vec<u8>, u32)>);

impl Items for TestItems {
    fn run(&self, index: u32) -> Result<Run<'_>> {
        let (data, count) = self
            .0
            .get(index as usize - 1)
            .ok_or_else(|| Error::new(ErrorKind::IndexOutOfRange { what: "item", index: index as u64, count: 0 }))?;
        Ok(Run { data, base: 0x1000 * index as u64, count: *count })
    }
}

fn round_trip<T: Value + PartialEq + std::fmt::Debug>(bytes: &[u8], items: &dyn Items) -> T {
    let v: T = read_value(bytes, 0x40, items).unwrap();
    let out = write_value(&v, 0x40, &mut SourceIndices { data: bytes, base: 0x40 }).unwrap();
    assert_eq!(out, bytes);
    v
}

#[test]
fn scalars_keep_their_bits() {
    assert_eq!(round_trip::<u32>(&[1, 2, 3, 4], &NoItems), 0x04030201);
    assert_eq!(round_trip::<Be<u32>>(&[1, 2, 3, 4], &NoItems), Be(0x01020304));
    let nan = 0x7fa0_0001u32.to_le_bytes();
    let f: f32 = read_value(&nan, 0, &NoItems).unwrap();
    assert_eq!(f.to_bits(), 0x7fa0_0001);
    assert_eq!(round_trip::<Bool8>(&[3], &NoItems), Bool8(3));
    assert!(Bool8(3).get());
    // The half is the top of a float: 0x3ECC is 0.3984375, not binary16's 1.699.
    let h = round_trip::<Half16>(&[0xcc, 0x3e], &NoItems);
    assert_eq!(h.to_f32(), 0.3984375);
    assert_eq!(Half16::from_f32(0.5), Half16(0x3f00));
}

#[test]
fn vectors_keep_every_lane() {
    let mut bytes = Vec::new();
    for x in [1.0f32, 2.0, 3.0, -0.0] {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    let v = round_trip::<Vector4>(&bytes, &NoItems);
    assert_eq!(v.lanes[3].to_bits(), (-0.0f32).to_bits());
    let t = round_trip::<QsTransform>(&bytes.repeat(3), &NoItems);
    assert_eq!(t.scale, v);
}

#[test]
fn strings_keep_null_and_empty_apart() {
    let items = TestItems(vec![(b"\0".to_vec(), 1), (b"bone\0".to_vec(), 5)]);
    let mut slots = vec![0u8; 24];
    slots[8] = 1;
    slots[16] = 2;
    let v = round_trip::<[StringPtr; 3]>(&slots, &items);
    assert_eq!(v, [StringPtr(None), StringPtr(Some("".into())), "bone".into()]);
}

#[test]
fn arrays_read_their_run() {
    let items = TestItems(vec![([7u16.to_le_bytes(), 9u16.to_le_bytes()].concat(), 2)]);
    let mut slot = vec![0u8; 16];
    slot[0] = 1;
    let a = round_trip::<Array<u16>>(&slot, &items);
    assert_eq!(a.items, vec![7, 9]);
    let r = round_trip::<RelArray<u16>>(&slot[..4], &items);
    assert_eq!(r.items, vec![7, 9]);
    let empty = round_trip::<Array<u16>>(&[0; 16], &items);
    assert!(empty.is_empty());
}

#[test]
fn array_count_is_checked_against_the_run() {
    let items = TestItems(vec![(vec![0; 4], 3)]);
    let e = read_value::<Array<u16>>(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0, &items).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(e.offset(), Some(0x1000));
}

#[test]
fn self_referencing_run_ends_in_an_error() {
    struct Loop;
    impl Items for Loop {
        fn run(&self, _: u32) -> Result<Run<'_>> {
            static ONE: [u8; 16] = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
            Ok(Run { data: &ONE, base: 0x100, count: 1 })
        }
    }
    #[derive(Debug)]
    struct Node(Array<Node>);
    impl Value for Node {
        const SIZE: usize = 16;
        const ALIGN: usize = 8;
        fn read(r: &Reader<'_>) -> Result<Self> {
            Ok(Node(r.field(0, "children")?))
        }
        fn write(&self, w: &mut Writer<'_>) -> Result<()> {
            w.field(0, "children", &self.0)
        }
    }
    let e = read_value::<Node>(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0, &Loop).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Cycle(_)), "{e}");
}

#[test]
fn reference_slots_must_be_zero_after_the_index() {
    let e = read_value::<Ptr<Unknown>>(&[5, 0, 0, 0, 0, 1, 0, 0], 0x20, &NoItems).unwrap_err();
    assert_eq!(e.offset(), Some(0x25));
    let p = round_trip::<Ptr<Unknown>>(&[5, 0, 0, 0, 0, 0, 0, 0], &NoItems);
    assert_eq!(p.handle(), Some(crate::Handle(5)));
}

#[test]
fn short_input_is_a_located_error() {
    let e = read_value::<Vector4>(&[0; 10], 0x80, &NoItems).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Eof { need: 16, have: 10 }), "{e}");
    assert_eq!(e.offset(), Some(0x80));
    let e = Reader::new(&[0; 4], 0, &NoItems).field::<u64>(0, "userData").unwrap_err();
    assert_eq!(e.path(), vec!["userData"]);
}

#[test]
fn visit_reports_slots_in_offset_order() {
    let v = (Ptr::<Unknown>::to(crate::Handle(3)), StringPtr::from("x"));
    let mut seen = Vec::new();
    v.0.visit_refs(0, &mut |at, t: Target<'_>| seen.push((at, matches!(t, Target::Object(3)))));
    v.1.visit_refs(8, &mut |at, t: Target<'_>| seen.push((at, matches!(t, Target::Str(Some("x"))))));
    assert_eq!(seen, vec![(0, true), (8, true)]);
}

#[test]
fn enum_keeps_unknown_values() {
    struct Motion;
    impl Enumeration for Motion {
        const NAME: &'static str = "hknpMotionType::Enum";
        const ITEMS: &'static [(&'static str, i64)] = &[("STATIC", 0), ("DYNAMIC", 2)];
    }
    let e = round_trip::<Enum<Motion, u8>>(&[2], &NoItems);
    assert_eq!(e.name(), Some("DYNAMIC"));
    let odd = round_trip::<Enum<Motion, u8>>(&[200], &NoItems);
    assert_eq!((odd.name(), odd.value()), (None, 200));
    let f = Flags::<Motion, u8>::new(3);
    assert_eq!(f.names(), (vec!["DYNAMIC"], 1));
}

#[test]
fn downcast_walks_the_bases() {
    struct Base;
    struct Derived {
        base: Base,
    }
    impl Object for Base {
        fn class_name(&self) -> &'static str {
            "Base"
        }
        fn parent_object(&self) -> Option<&dyn Object> {
            None
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn visit_object_refs(&self, _: &mut dyn Visitor) {}
        fn write_object(&self, _: &mut Writer<'_>) -> Result<()> {
            Ok(())
        }
    }
    impl Object for Derived {
        fn class_name(&self) -> &'static str {
            "Derived"
        }
        fn parent_object(&self) -> Option<&dyn Object> {
            Some(&self.base)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
        fn visit_object_refs(&self, _: &mut dyn Visitor) {}
        fn write_object(&self, _: &mut Writer<'_>) -> Result<()> {
            Ok(())
        }
    }
    let d: Box<dyn Object> = Box::new(Derived { base: Base });
    assert!(d.downcast_ref::<Derived>().is_some());
    assert!(d.downcast_ref::<Base>().is_some());
    assert!(d.is_a("Base"));
    let b: Box<dyn Object> = Box::new(Base);
    assert!(b.downcast_ref::<Derived>().is_none());
}

#[test]
#[should_panic(expected = "returned a place other than its own")]
fn a_member_read_in_place_must_fill_its_own_place() {
    // A hand-written value that hands back some other initialised value than the one it was
    // given to fill: the reader stops rather than take the place as initialised.
    struct Elsewhere(u32);
    impl Value for Elsewhere {
        const SIZE: usize = 4;
        const ALIGN: usize = 4;
        fn read(r: &Reader<'_>) -> Result<Self> {
            Ok(Elsewhere(r.field(0, "v")?))
        }
        fn read_members_into<'o>(_: &mut FieldReader<'_, '_>, _: &'o mut std::mem::MaybeUninit<Self>) -> &'o mut Self {
            Box::leak(Box::new(Elsewhere(7)))
        }
        fn write(&self, w: &mut Writer<'_>) -> Result<()> {
            w.field(0, "v", &self.0)
        }
    }
    let bytes = [1, 0, 0, 0];
    let r = Reader::new(&bytes, 0, &NoItems);
    let _: Elsewhere = r.fields().take();
}

#[test]
fn a_member_read_by_hand_is_named_in_its_error() {
    let bytes = [7, 0, 0, 0, 9, 0];
    let r = Reader::new(&bytes, 0x10, &NoItems);
    let mut f = r.fields();
    let a: u32 = f.get(0, "first");
    assert_eq!(a, 7);
    // Four bytes at offset 4 run past the six of the window: a placeholder, and the error.
    let b: u32 = f.get(4, "second");
    assert_eq!(b, 0);
    let e = f.finish(()).unwrap_err();
    assert_eq!(e.path(), vec!["second"]);
}
