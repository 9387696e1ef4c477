/// `X-Device-Key`: a random value a client makes once and keeps, 16...128 of `A-Z a-z 0-9 _ -`.
/// Only a keyed hash of it is ever stored.
public enum DeviceKey {
    public static let header = "X-Device-Key"

    public static func validated(_ text: String) throws(ValidationError) -> String {
        let bytes = text.utf8
        guard (16...128).contains(bytes.count), bytes.allSatisfy(isKeyByte) else {
            throw ValidationError(field: header, "must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -")
        }
        return text
    }

    static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
