import Foundation
import Hummingbird
import Logging
import NIOCore

/// A directory read into memory once, at start, and served from there through Hummingbird's
/// `FileMiddleware` (which keeps its ETag, 304, range and index.html handling): the page and
/// Leaflet are small, and no request then waits on the disk or blocks an event loop.
struct InMemoryFiles: FileProvider {
    struct FileAttributes: FileMiddlewareFileAttributes, Sendable {
        var isFolder: Bool
        var size: Int
        var modificationDate: Date
    }

    struct Entry: Sendable {
        var attributes: FileAttributes
        var bytes: ByteBuffer
    }

    /// Keyed by the path below the root, with a leading slash (`/app.js`, `/moderate`).
    private let entries: [String: Entry]
    /// Larger files are left out (and logged): this is for a page's assets, not for downloads.
    static let largestFile = 8 * 1024 * 1024

    init(directory: String, logger: Logger) {
        var entries: [String: Entry] = [:]
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
        let folder = FileAttributes(isFolder: true, size: 0, modificationDate: Date(timeIntervalSince1970: 0))
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey, .contentModificationDateKey, .fileSizeKey])
        else {
            logger.warning("no files to serve", metadata: ["directory": "\(directory)"])
            self.entries = [:]
            return
        }
        entries["/"] = Entry(attributes: folder, bytes: ByteBuffer())
        for case let url as URL in walker {
            let relative = "/" + url.path.dropFirst(root.path.count).drop(while: { $0 == "/" })
            guard let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .contentModificationDateKey, .fileSizeKey]) else { continue }
            if values.isDirectory == true {
                entries[relative] = Entry(attributes: folder, bytes: ByteBuffer())
                continue
            }
            guard (values.fileSize ?? 0) <= Self.largestFile, let data = FileManager.default.contents(atPath: url.path) else {
                logger.warning("not served: too large or unreadable", metadata: ["file": "\(url.path)"])
                continue
            }
            let attributes = FileAttributes(
                isFolder: false, size: data.count, modificationDate: values.contentModificationDate ?? Date(timeIntervalSince1970: 0))
            entries[relative] = Entry(attributes: attributes, bytes: ByteBuffer(bytes: data))
        }
        self.entries = entries
    }

    func getFileIdentifier(_ path: String) -> String? {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.hasPrefix("/") ? trimmed : "/" + trimmed
    }

    func getAttributes(id: String) async throws -> FileAttributes? {
        entries[id]?.attributes
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        guard let entry = entries[id] else { throw HTTPError(.notFound) }
        return ResponseBody(byteBuffer: entry.bytes)
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        guard let entry = entries[id], let slice = entry.bytes.getSlice(at: range.lowerBound, length: range.count) else {
            throw HTTPError(.rangeNotSatisfiable)
        }
        return ResponseBody(byteBuffer: slice)
    }

    /// A file's bytes, for the precompressed twins.
    func contents(of path: String) -> ByteBuffer? {
        guard let entry = entries[path], !entry.attributes.isFolder else { return nil }
        return entry.bytes
    }
}
