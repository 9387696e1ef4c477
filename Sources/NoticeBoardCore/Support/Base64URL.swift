import ExtrasBase64

/// Unpadded base64url (RFC 4648 §5), for page cursors and tokens.
public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The bytes, or `nil` when the text is not unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        try? Base64.decode(string: text, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
