import Crypto
import Foundation
import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

/// Web Push's cryptography against RFC 8291's worked example (Appendix A), VAPID tokens that
/// verify, and the host policy's address classes.
@Suite struct WebPushTests {
    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }

    @Test func encryptionReproducesRFC8291AppendixA() throws {
        let body = try WebPushEncryption.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8),
            p256dh: Self.bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            auth: Self.bytes("BTBZMqHH6r4Tts7J_aSIgg"), salt: Self.bytes("DGv6ra1nlYgDCS1FRnbzlw"),
            senderKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")),
            padded: 42)
        #expect(
            Base64URL.encode(body)
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    @Test func ephemeralKeysAreFreshAndAgreeWithTheReceiver() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let keys = (0..<20).map { _ in WebPushEncryption.ephemeralKey() }
        #expect(Set(keys.map { $0.rawRepresentation }).count == keys.count)
        for key in keys {
            // The public key is the scalar's: both sides agree on the secret.
            let mine = try key.sharedSecretFromKeyAgreement(with: receiver.publicKey)
            let theirs = try receiver.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: key.publicKey.x963Representation))
            #expect(mine.withUnsafeBytes { Array($0) } == theirs.withUnsafeBytes { Array($0) })
        }
    }

    @Test func aBadBrowserKeyIsRefused() {
        #expect(!WebPushEncryption.isValidKey([4] + [UInt8](repeating: 1, count: 64)))
        #expect(WebPushEncryption.isValidKey([UInt8](P256.KeyAgreement.PrivateKey().publicKey.x963Representation)))
    }

    @Test func vapidTokensVerifyWithThePublishedKey() throws {
        let vapid = try VAPID(rawKey: [UInt8](P256.Signing.PrivateKey().rawRepresentation), subject: "mailto:ops@example.org")
        let header = try vapid.authorization(audience: "https://push.example.org", now: 1_800_000_000)
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        #expect(parts[1] == vapid.publicKey)
        let token = parts[0].split(separator: ".").map(String.init)
        #expect(token.count == 3)
        let claims = try JSONSerialization.jsonObject(with: Data(Self.bytes(token[1]))) as! [String: Any]
        #expect(claims["aud"] as? String == "https://push.example.org")
        #expect(claims["exp"] as? Int == 1_800_000_000 + VAPID.tokenLifetimeSeconds)
        #expect(claims["sub"] as? String == "mailto:ops@example.org")
        let key = try P256.Signing.PublicKey(x963Representation: Self.bytes(vapid.publicKey))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.bytes(token[2]))
        #expect(key.isValidSignature(signature, for: Data("\(token[0]).\(token[1])".utf8)))
        #expect(!key.isValidSignature(signature, for: Data("\(token[0]).x\(token[1])".utf8)))
    }

    @Test func onlyPublicAddressesPass() {
        let private4 = ["127.0.0.1", "10.2.3.4", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                        "224.0.0.1", "255.255.255.255", "198.18.0.1"]
        let private6 = ["::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2001:db8::1"]
        let publicAddresses = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "192.169.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "100.128.0.1"]
        for text in private4 + private6 { #expect(IPAddress(text)?.isPublic == false, "\(text)") }
        for text in publicAddresses { #expect(IPAddress(text)?.isPublic == true, "\(text)") }
        #expect(IPAddress("example.org") == nil)
    }

    @Test func thePolicyRefusesLoopbackUnlessAllowed() async throws {
        let strict = HostPolicy(allowedHosts: [])
        #expect(await strict.check(try DeliveryURL("http://127.0.0.1:9/x", field: "url")) != .allowed)
        #expect(await strict.check(try DeliveryURL("http://localhost/x", field: "url")) != .allowed)
        #expect(await strict.check(try DeliveryURL("http://[::1]/x", field: "url")) != .allowed)
        #expect(await strict.check(try DeliveryURL("https://8.8.8.8/x", field: "url")) == .allowed)
        let allowing = HostPolicy(allowedHosts: ["127.0.0.1", "[::1]"])
        #expect(await allowing.check(try DeliveryURL("http://127.0.0.1:9/x", field: "url")) == .allowed)
        #expect(await allowing.check(try DeliveryURL("http://[::1]/x", field: "url")) == .allowed)
        #expect(await allowing.check(try DeliveryURL("http://10.0.0.1/x", field: "url")) != .allowed)
        // A list given is the whole list: public hosts outside it are refused too.
        #expect(await allowing.check(try DeliveryURL("https://8.8.8.8/x", field: "url")) != .allowed)
    }

    @Test func aPushBodyFitsOneRecordEvenForTheLongestNote() {
        let message = String(repeating: "長", count: 2000)
        let post = Post(id: 1, lat: 1, lon: 2, heading: nil, message: message, tag: "food", createdAt: 0, accuracy: nil, floor: nil, beacon: nil)
        let body = PushBody.post(post)
        #expect(body.count <= WebPushEncryption.maxPlaintext)
        #expect(body.count > WebPushEncryption.maxPlaintext * 3 / 4, "shortened no more than a quarter too far")
        let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        #expect(json?["truncated"] as? Bool == true)
        let short = PushBody.post(Post(id: 2, lat: 1, lon: 2, heading: nil, message: "hi", tag: "food", createdAt: 0, accuracy: nil, floor: nil, beacon: nil))
        #expect(String(decoding: short, as: UTF8.self).hasPrefix(#"{"post":{"#) && !String(decoding: short, as: UTF8.self).contains("truncated"))
    }

    @Test func aReplyPushNamesItsNoteAndGivesWayWithTheNotesTextFirst() throws {
        var post = Post(id: 7, lat: 1, lon: 2, heading: nil, message: String(repeating: "長", count: 2000), tag: "food", createdAt: 0, accuracy: nil, floor: nil, beacon: nil)
        let reply = Reply(id: 3, postId: 7, message: String(repeating: "答", count: 900), createdAt: 5, deviceHash: "x", byAuthor: false)
        let body = PushBody.reply(reply, on: post)
        #expect(body.count <= WebPushEncryption.maxPlaintext)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let replyJSON = try #require(json["reply"] as? [String: Any])
        #expect(replyJSON["message"] as? String == reply.message, "the reply is whole; the note's text gave way")
        #expect(replyJSON["postId"] as? Int == 7 && replyJSON["id"] as? Int == 3)
        #expect((json["post"] as? [String: Any])?["id"] as? Int == 7)
        #expect(json["truncated"] as? Bool == true)
        post.message = "short"
        let whole = try #require(try JSONSerialization.jsonObject(with: Data(PushBody.reply(reply, on: post))) as? [String: Any])
        #expect((whole["post"] as? [String: Any])?["message"] as? String == "short" && whole["truncated"] == nil)
    }

    /// RFC 8291 section 4: a push service need accept only 4096 bytes, header and tag included.
    @Test func theLargestPlaintextMakesA4096ByteBodyAndPaddingHidesTheLength() throws {
        let key = [UInt8](P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        let auth = WebPushEncryption.randomBytes(16)
        #expect(WebPushEncryption.maxPlaintext == 3993)
        let largest = try WebPushEncryption.encrypt([UInt8](repeating: 65, count: 3993), p256dh: key, auth: auth)
        #expect(largest.count == 4096)
        #expect(throws: WebPushEncryption.TooLarge.self) {
            try WebPushEncryption.encrypt([UInt8](repeating: 65, count: 3994), p256dh: key, auth: auth)
        }
        // Bodies of different lengths within one bucket cannot be told apart by their size.
        let sizes = try [1, 100, 511].map { try WebPushEncryption.encrypt([UInt8](repeating: 65, count: $0), p256dh: key, auth: auth).count }
        #expect(Set(sizes).count == 1 && sizes[0] == 86 + 512 + 16)
        #expect(try WebPushEncryption.encrypt([UInt8](repeating: 65, count: 512), p256dh: key, auth: auth).count == 86 + 1024 + 16)
    }

    @Test func aPaddedRecordDecryptsToThePlaintext() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let receiverPublic = [UInt8](receiver.publicKey.x963Representation)
        let auth = WebPushEncryption.randomBytes(16)
        let plaintext = Array(#"{"post":{"id":1}}"#.utf8)
        let body = try WebPushEncryption.encrypt(plaintext, p256dh: receiverPublic, auth: auth)
        // RFC 8291's receiver side: salt, record size, sender key, then the record.
        let salt = Array(body[0..<16]), senderPublic = Array(body[21..<86])
        let shared = try receiver.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let ikm = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: Array("WebPush: info".utf8) + [0] + receiverPublic + senderPublic, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let record = Array(body[86...])
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }), ciphertext: record.dropLast(16), tag: record.suffix(16))
        let opened = [UInt8](try AES.GCM.open(box, using: key))
        #expect(Array(opened.prefix(plaintext.count)) == plaintext)
        #expect(opened[plaintext.count] == 2 && opened.dropFirst(plaintext.count + 1).allSatisfy { $0 == 0 })
    }

    @Test func vapidTokensAreReusedPerAudienceUntilNearTheirEnd() throws {
        let vapid = try VAPID(rawKey: [UInt8](P256.Signing.PrivateKey().rawRepresentation), subject: "mailto:ops@example.org")
        var cache = VAPIDTokenCache()
        #expect(cache.header(for: "https://push.example.org", now: 1_000_000) == nil)
        let first = try cache.sign(for: "https://push.example.org", now: 1_000_000, with: vapid)
        #expect(cache.header(for: "https://push.example.org", now: 1_000_000 + 3600) == first)
        #expect(cache.header(for: "https://other.example.org", now: 1_000_000) == nil)
        #expect(cache.header(for: "https://push.example.org", now: 1_000_000 + VAPID.tokenLifetimeSeconds - 3000) == nil,
                "a token within an hour of its end is signed anew")
    }
}
