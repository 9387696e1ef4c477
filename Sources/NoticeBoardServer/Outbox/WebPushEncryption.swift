import Crypto
import Foundation

/// A push message's body encrypted for one browser: RFC 8291 (Message Encryption for Web Push)
/// in RFC 8188's `aes128gcm` content coding, as one record, padded so that the push service
/// learns only a bucket of the length.
enum WebPushEncryption {
    /// The record size announced in the header.
    static let recordSize = 4096
    /// RFC 8291 section 4: push services need only accept 4096 bytes of body, which holds the
    /// 86-byte header (salt, record size, key length, 65-byte key), the 16-byte tag and the
    /// delimiter besides the plaintext.
    static let maxBody = 4096
    static let headerSize = 86
    static let maxPlaintext = maxBody - headerSize - 16 - 1
    /// Plaintext and delimiter are padded with zeros up to a multiple of this (or the maximum).
    static let paddingBucket = 512

    struct InvalidKey: Error {}
    struct TooLarge: Error, CustomStringConvertible {
        let size: Int
        var description: String { "a push body of \(size) bytes does not fit in one record (at most \(WebPushEncryption.maxPlaintext))" }
    }

    /// The length of plaintext, delimiter and padding for a plaintext of `count` bytes.
    static func paddedLength(_ count: Int) -> Int {
        min(maxPlaintext + 1, (count + 1 + paddingBucket - 1) / paddingBucket * paddingBucket)
    }

    /// `salt` and the sender's ephemeral key are fresh per message unless given (tests).
    /// `padded` is the length of plaintext, delimiter and padding (tests give RFC 8291's
    /// unpadded example its own).
    static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], salt: [UInt8] = randomBytes(16),
        senderKey: P256.KeyAgreement.PrivateKey = ephemeralKey(), padded: Int? = nil
    ) throws -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw TooLarge(size: plaintext.count) }
        guard let receiverKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh) else { throw InvalidKey() }
        let senderPublic = [UInt8](senderKey.publicKey.x963Representation)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: receiverKey)
        // IKM = HKDF(salt: auth secret, ikm: ECDH secret, info: "WebPush: info" 0 ua_public as_public).
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let contentKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let sealed = try AES.GCM.seal(
            plaintext + [2] + [UInt8](repeating: 0, count: max(0, (padded ?? paddedLength(plaintext.count)) - plaintext.count - 1)), using: contentKey, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        var body = salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) }
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// A fresh key pair from a uniformly random scalar: one multiplication of the base point.
    /// `PrivateKey()` also checks each key it makes with FIPS's pairwise test (a signature and its
    /// verification) and draws again until the key is compact-representable: several times the work.
    static func ephemeralKey() -> P256.KeyAgreement.PrivateKey {
        while true {
            // The scalar must lie in [1, n − 1]; a draw outside (odds about 2⁻³²) is drawn again.
            let scalar = SymmetricKey(size: .bits256)
            if let key = scalar.withUnsafeBytes({ try? P256.KeyAgreement.PrivateKey(rawRepresentation: $0) }) { return key }
        }
    }

    static func isValidKey(_ p256dh: [UInt8]) -> Bool {
        (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
