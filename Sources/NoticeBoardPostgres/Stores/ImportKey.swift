import Crypto
import NIOCore
import NoticeBoardCore

/// A row's import key computed in Swift, byte for byte what `PostgresPostArchive.importKey(of:)`
/// computes in SQL, so posts loaded by either path are recognised by the other on a re-run.
struct ImportKey {
    /// The SHA-256 as four words: what the bulk loader remembers to skip a repeated row.
    struct Digest: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (a: Digest, b: Digest) -> Bool { a.words == b.words }

        func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
    }

    let digest: Digest

    init(of post: ImportedPost) {
        var scratch: [UInt8] = []
        self.init(of: post, numbers: Numbers(post), scratch: &scratch)
    }

    /// A post's numbers as `float8::text` writes them: in the key, and in `COPY` rows as they are.
    struct Numbers {
        var lat: String, lon: String, heading: String?, accuracy: String?, floor: String?

        init(_ post: ImportedPost) {
            let draft = post.draft
            lat = ImportKey.float8Text(draft.lat)
            lon = ImportKey.float8Text(draft.lon)
            heading = draft.heading.map(ImportKey.float8Text)
            accuracy = draft.accuracy.map(ImportKey.float8Text)
            floor = draft.floor.map { String($0) }
        }
    }

    /// `scratch` is reused from row to row (its contents are replaced): one allocation for a whole import.
    init(of post: ImportedPost, numbers: Numbers, scratch joined: inout [UInt8]) {
        let draft = post.draft
        // The parts joined into one buffer and hashed at once: an update a part cost more than the hash.
        joined.removeAll(keepingCapacity: true)
        func add(_ part: String, first: Bool = false) {
            if !first { joined.append(Self.separator) }
            var part = part
            part.withUTF8 { joined.append(contentsOf: $0) }
        }
        add(post.sourceID ?? "", first: true)
        add(numbers.lat); add(numbers.lon); add(numbers.heading ?? ""); add(draft.message); add(draft.tag); add(String(post.createdAt))
        add(numbers.accuracy ?? ""); add(numbers.floor ?? ""); add(draft.beacon ?? "")
        digest = SHA256.hash(data: joined).withUnsafeBytes { raw in
            Digest(
                words: (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                ))
        }
    }

    /// The SHA-256's 32 bytes in order (each word was loaded from them as stored).
    private func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: digest.words) { body($0) }
    }

    /// Lower-case hex, as the `import_key` column holds it.
    var hex: String {
        String(unsafeUninitializedCapacity: 64) { text in
            withBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    text[2 * index] = Self.hexDigits[Int(byte >> 4)]
                    text[2 * index + 1] = Self.hexDigits[Int(byte & 0x0F)]
                }
            }
            return 64
        }
    }

    /// The hex written straight into a `COPY` row.
    func appendHex(to buffer: inout ByteBuffer) {
        withBytes { bytes in
            _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 64) { text in
                for (index, byte) in bytes.enumerated() {
                    text[2 * index] = Self.hexDigits[Int(byte >> 4)]
                    text[2 * index + 1] = Self.hexDigits[Int(byte & 0x0F)]
                }
                return 64
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let separator: UInt8 = 0x1F

    /// `float8::text` (shortest exact digits, PostgreSQL 12 and later) for the magnitudes a
    /// post holds (below 1e15): Swift writes the same digits but keeps `.0` on whole numbers.
    static func float8Text(_ value: Double) -> String {
        let text = String(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
