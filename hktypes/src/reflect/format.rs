//! The format word: the low 5 bits the kind, the rest kind-specific (spec: "Values").

/// What a type is, from the low 5 bits of its format word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Kind 0: no value (`void`).
    Void,
    /// Kind 1: bytes with no known shape.
    Opaque,
    /// Kind 2: a boolean.
    Bool,
    /// Kind 3: a string (a pointer to characters, or characters inline).
    String,
    /// Kind 4: an integer (width and signedness in the word).
    Int,
    /// Kind 5: a floating-point number.
    Float,
    /// Kind 6: a pointer to an object.
    Pointer,
    /// Kind 7: a record (class or struct) of members.
    Record,
    /// Kind 8: an array, fixed or variable.
    Array,
    /// A kind this crate does not know.
    Other(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// A type's format word.
///
/// ```
/// use hktypes::reflect::{TypeFormat, Kind};
///
/// let int = TypeFormat(0x4204); // hkInt16: kind 4, signed, 16 bits
/// assert_eq!((int.kind(), int.is_signed(), int.int_bits()), (Kind::Int, true, 16));
/// let fixed = TypeFormat(0x0428); // T[4]: an array of form 1 with 4 elements
/// assert!(fixed.is_fixed_array());
/// assert_eq!(fixed.fixed_count(), 4);
/// ```
pub struct TypeFormat(pub u32);

impl TypeFormat {
    /// The kind, from the low 5 bits.
    pub fn kind(self) -> Kind {
        match self.0 & 0x1F {
            0 => Kind::Void,
            1 => Kind::Opaque,
            2 => Kind::Bool,
            3 => Kind::String,
            4 => Kind::Int,
            5 => Kind::Float,
            6 => Kind::Pointer,
            7 => Kind::Record,
            8 => Kind::Array,
            k => Kind::Other(k as u8),
        }
    }

    /// Bits 5-6 of an array's format word: 1 a fixed-size (C) array, 2 a variable array.
    pub fn array_form(self) -> u32 {
        (self.0 >> 5) & 3
    }

    /// A fixed-size array: kind 8 with bits 5-6 equal to 1.
    pub fn is_fixed_array(self) -> bool {
        self.kind() == Kind::Array && self.array_form() == 1
    }

    /// Element count of a fixed-size array (bits 8 and up).
    pub fn fixed_count(self) -> u32 {
        self.0 >> 8
    }

    /// Integer width in bits (bits 10 and up) for kind `Int` and `Bool`.
    pub fn int_bits(self) -> u32 {
        self.0 >> 10
    }

    /// Integer signedness (bit 9).
    pub fn is_signed(self) -> bool {
        self.0 & 0x200 != 0
    }

    /// Bits of a float format: 0x174605 is `float`, 0x74605 is `hkHalf16`.
    /// No table of either game stores another width.
    pub fn float_bits(self) -> Option<u32> {
        match self.0 {
            0x0017_4605 => Some(32),
            0x0007_4605 => Some(16),
            _ => None,
        }
    }
}
