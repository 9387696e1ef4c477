import Crypto
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
    /// Lower-case hex, as the `import_key` column holds it.
    let hex: String

    init(of post: ImportedPost) {
        self.init(of: post, numbers: Numbers(post))
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

    init(of post: ImportedPost, numbers: Numbers) {
        let draft = post.draft
        let parts = [
            post.sourceID ?? "", numbers.lat, numbers.lon, numbers.heading ?? "", draft.message, draft.tag, String(post.createdAt),
            numbers.accuracy ?? "", numbers.floor ?? "", draft.beacon ?? "",
        ]
        var hasher = SHA256()
        for (index, part) in parts.enumerated() {
            if index > 0 { hasher.update(data: Self.separator) }
            var part = part
            part.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        let hash = hasher.finalize()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        bytes.append(contentsOf: hash)
        digest = bytes.withUnsafeBytes { raw in
            Digest(
                words: (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                ))
        }
        let digits = Array("0123456789abcdef".utf8)
        hex = String(unsafeUninitializedCapacity: 64) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digits[Int(byte >> 4)]
                text[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return 64
        }
    }

    private static let separator: [UInt8] = [0x1F]

    /// `float8::text` (shortest exact digits, PostgreSQL 12 and later) for the magnitudes a
    /// post holds (below 1e15): Swift writes the same digits but keeps `.0` on whole numbers.
    static func float8Text(_ value: Double) -> String {
        let text = String(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
