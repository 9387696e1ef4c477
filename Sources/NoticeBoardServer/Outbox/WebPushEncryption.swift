import Crypto
import Foundation

/// A push message's body encrypted for one browser: RFC 8291 (Message Encryption for Web Push)
/// in RFC 8188's `aes128gcm` content coding, as one record.
enum WebPushEncryption {
    /// The record size announced in the header; a body must fit in one record.
    static let recordSize = 4096
    /// The most plaintext one record carries: the record size less the tag (16) and the delimiter (1).
    static let maxPlaintext = recordSize - 17

    struct InvalidKey: Error {}

    /// `salt` and the sender's ephemeral key are fresh per message unless given (tests).
    static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], salt: [UInt8] = randomBytes(16),
        senderKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws -> [UInt8] {
        precondition(plaintext.count <= maxPlaintext, "a push body must fit in one record")
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
            plaintext + [2], using: contentKey, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        var body = salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) }
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    static func isValidKey(_ p256dh: [UInt8]) -> Bool {
        (try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)) != nil
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
