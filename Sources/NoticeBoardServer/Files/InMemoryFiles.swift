import Foundation
import Hummingbird
import Logging
import NIOCore

/// A directory read into memory once, at start, and served from there through Hummingbird's
/// `FileMiddleware` (which keeps its ETag, 304, range and index.html handling): the page and
/// Leaflet are small, and no request then waits on the disk or blocks an event loop. Symbolic
/// links are followed, as a file server on the directory would.
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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            logger.warning("no files to serve: not a directory", metadata: ["directory": "\(directory)"])
            self.entries = [:]
            return
        }
        var visited: Set<String> = []
        Self.read(directory: URL(fileURLWithPath: directory), as: "", into: &entries, visited: &visited, logger: logger)
        self.entries = entries
    }

    /// Reads a directory and, through links too, everything below it; a directory reached twice
    /// (a link loop) is read once.
    private static func read(directory: URL, as relative: String, into entries: inout [String: Entry], visited: inout Set<String>, logger: Logger) {
        let resolved = directory.resolvingSymlinksInPath()
        guard visited.insert(resolved.path).inserted,
            let names = try? FileManager.default.contentsOfDirectory(atPath: resolved.path)
        else { return }
        entries[relative.isEmpty ? "/" : relative] = Entry(attributes: folder(modified: modificationDate(resolved)), bytes: ByteBuffer())
        for name in names.sorted() {
            let target = resolved.appendingPathComponent(name).resolvingSymlinksInPath()
            let path = relative + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                read(directory: target, as: path, into: &entries, visited: &visited, logger: logger)
                continue
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? nil
            guard let size, size <= largestFile, let data = FileManager.default.contents(atPath: target.path) else {
                logger.warning("not served: too large or unreadable", metadata: ["file": "\(target.path)"])
                continue
            }
            entries[path] = Entry(
                attributes: FileAttributes(isFolder: false, size: data.count, modificationDate: modificationDate(target)),
                bytes: ByteBuffer(bytes: data))
        }
    }

    private static func folder(modified: Date) -> FileAttributes {
        FileAttributes(isFolder: true, size: 0, modificationDate: modified)
    }

    /// Whole seconds, as the file system's own provider reports them (the ETag is made from it).
    private static func modificationDate(_ url: URL) -> Date {
        let date = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
        return Date(timeIntervalSince1970: (date?.timeIntervalSince1970 ?? 0).rounded(.down))
    }

    /// A trailing slash names a directory only: `/moderate/` is the directory, `/app.js/` nothing.
    func getFileIdentifier(_ path: String) -> String? {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        guard absolute.count > 1, absolute.hasSuffix("/") else { return absolute }
        let trimmed = String(absolute.dropLast())
        return entries[trimmed]?.attributes.isFolder == true ? trimmed : absolute
    }

    func getAttributes(id: String) async throws -> FileAttributes? {
        entries[id]?.attributes
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        guard let entry = entries[id] else { throw HTTPError(.notFound) }
        return ResponseBody(byteBuffer: entry.bytes)
    }

    /// The part of the file in `range`, which comes as the client asked (`bytes=0-` ends at
    /// `Int.max`): clamped to the file, as the file system's provider does.
    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        guard let entry = entries[id] else { throw HTTPError(.notFound) }
        guard entry.bytes.readableBytes > 0 else { return ResponseBody() }
        let clamped = range.clamped(to: 0...(entry.bytes.readableBytes - 1))
        return ResponseBody(byteBuffer: entry.bytes.getSlice(at: clamped.lowerBound, length: clamped.count) ?? ByteBuffer())
    }

    /// Every file's path (folders left out).
    var paths: [String] { entries.filter { !$0.value.attributes.isFolder }.map(\.key).sorted() }

    /// A file's bytes, for the precompressed twins.
    func contents(of path: String) -> ByteBuffer? {
        guard let entry = entries[path], !entry.attributes.isFolder else { return nil }
        return entry.bytes
    }
}
