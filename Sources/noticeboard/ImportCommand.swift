import ArgumentParser
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import posts from a CSV or NDJSON file, keeping their createdAt.",
        discussion: """
            CSV needs a header line naming its columns: lat, lon, message, tag, createdAt (or created_at), and \
            optionally id, heading, accuracy, floor, beacon, status. The original board's export columns \
            pid, longitude, latitude, heading, msg, tag, pdate are understood too. NDJSON has one JSON object \
            per line with the same members (what `noticeboard export` writes).
            Every row is validated like POST /api/v1/posts; bad rows are reported by line number on standard \
            error and skipped, and the exit status is 2 when there were any. Into a board without posts the rows \
            go in through one COPY, in one transaction; into a board with posts, in batches, each committed. \
            Running the same file again adds nothing.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, ndjson
    }

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The file to import.") var file: String
    @Option(help: "csv or ndjson. Default: from the file name (.csv; .ndjson, .jsonl), else from its first character.")
    var format: Format?
    @Option(help: "Rows parsed at a time (each a transaction into a board with posts).") var batchSize = 50_000

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() async throws {
        guard let handle = FileHandle(forReadingAtPath: file) else { throw fail("cannot read \(file)") }
        defer { try? handle.close() }
        let totalBytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let format = try self.format ?? Self.sniffFormat(path: file)
        let batchSize = self.batchSize
        let summary = try await withMigratedClient(database) { client, logger in
            let archive = PostgresPostArchive(client: client, logger: logger)
            let changes = PostgresChangeFeed(client: client, logger: logger)
            var parser = PostFileParser(format: format)
            let progress = ImportProgress(totalBytes: totalBytes)
            /// Reads the whole file, handing over batches to `store`: one batch is stored while the
            /// next is parsed, so parsing and storing overlap. Returns how many posts were new.
            func pump(_ store: @escaping @Sendable ([ImportedPost]) async throws -> Int) async throws -> Int {
                var batch: [ImportedPost] = []
                var imported = 0
                var inFlight: Task<Int, any Error>?
                func flush() async throws {
                    let full = batch
                    batch.removeAll(keepingCapacity: true)
                    if let previous = inFlight { imported += try await previous.value }
                    inFlight = Task { try await store(full) }
                }
                do {
                    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                        try chunk.withUnsafeBytes { bytes in try parser.feed(bytes) { batch.append($0) } }
                        if batch.count >= batchSize { try await flush() }
                        progress.update(bytes: chunk.count, rows: parser.rowsRead)
                    }
                    try parser.finish { batch.append($0) }
                    try await flush()
                    if let last = inFlight { imported += try await last.value }
                } catch {
                    // A statement still running is waited for: the caller's transaction needs its connection back.
                    _ = try? await inFlight?.value
                    throw error
                }
                return imported
            }
            var imported = 0
            // Into an empty board, all in one transaction and one COPY, the indexes built at the end.
            let loadedWhole = try await archive.loadIntoEmptyBoard { loader in
                imported = try await pump { try await loader.add($0) }
                progress.finish(rows: parser.rowsRead)
                progress.note("building the board's indexes, filing the changes, then committing")
            }
            if loadedWhole {
                if imported > 0 { try? await changes.announce() }
            } else {
                // Batch by batch, each committed; running servers hear of each once it is.
                imported = try await pump { batch in
                    let added = try await archive.importBatch(batch)
                    if added > 0 { try? await changes.announce() }
                    return added
                }
            }
            if !loadedWhole { progress.finish(rows: parser.rowsRead) }
            return ImportSummary(read: parser.rowsRead, imported: imported, rejected: parser.rejected, intoEmptyBoard: loadedWhole)
        }
        let how = summary.intoEmptyBoard ? " (into the empty board, in one transaction)" : ""
        print(
            "Imported \(summary.imported) posts\(how); \(summary.read - summary.imported - summary.rejected) were there already; "
                + "\(summary.rejected) rows rejected. A running server shows new posts within a second.")
        if summary.rejected > 0 { throw ExitCode(2) }
    }

    static func sniffFormat(path: String) throws -> Format {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".csv") { return .csv }
        if lowered.hasSuffix(".ndjson") || lowered.hasSuffix(".jsonl") { return .ndjson }
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 4096) else {
            throw fail("cannot read \(path)")
        }
        let first = head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") ? .ndjson : .csv
    }
}

struct ImportSummary: Sendable {
    var read: Int
    var imported: Int
    var rejected: Int
    var intoEmptyBoard: Bool
}

/// Turns a file's bytes into validated posts, reporting bad rows on standard error by line.
struct PostFileParser {
    let format: ImportCommand.Format
    private var csv = CSVRecordReader()
    private var lines = LineRecordReader()
    private var layout: ImportedPost.CSVLayout?
    private(set) var rowsRead = 0
    private(set) var rejected = 0
    /// Reports beyond this many are counted, not printed: a wholly wrong file stays readable.
    private let reportLimit = 1000

    init(format: ImportCommand.Format) { self.format = format }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, accept: (ImportedPost) -> Void) throws {
        // The readers collect first: handling a record mutates this parser too.
        var records: [CSVRecordReader.Record] = []
        var jsonLines: [(Int, [UInt8])] = []
        switch format {
        case .csv: csv.feed(bytes) { records.append($0) }
        case .ndjson: lines.feed(bytes) { jsonLines.append(($0, $1)) }
        }
        try handle(records, jsonLines, accept: accept)
    }

    mutating func finish(accept: (ImportedPost) -> Void) throws {
        var records: [CSVRecordReader.Record] = []
        var jsonLines: [(Int, [UInt8])] = []
        switch format {
        case .csv: csv.finish { records.append($0) }
        case .ndjson: lines.finish { jsonLines.append(($0, $1)) }
        }
        try handle(records, jsonLines, accept: accept)
    }

    private mutating func handle(
        _ records: [CSVRecordReader.Record], _ jsonLines: [(Int, [UInt8])], accept: (ImportedPost) -> Void
    ) throws {
        for record in records { try handle(csvRecord: record, accept: accept) }
        for (line, json) in jsonLines { handle(line: line, json: json, accept: accept) }
    }

    private mutating func handle(csvRecord record: CSVRecordReader.Record, accept: (ImportedPost) -> Void) throws {
        guard let layout else {
            var names = record.fields
            // A byte-order mark before the first column name is not part of it.
            if let first = names.first, first.hasPrefix("\u{FEFF}") { names[0] = String(first.dropFirst()) }
            do {
                layout = ImportedPost.CSVLayout(header: try ImportedPost.validatedHeader(names))
            } catch {
                // Without a usable header no row can be read: stop at once.
                throw fail("line \(record.line): \(error.message)")
            }
            return
        }
        rowsRead += 1
        do {
            accept(try layout.post(from: record.fields))
        } catch {
            reject(line: record.line, error)
        }
    }

    private mutating func handle(line: Int, json: [UInt8], accept: (ImportedPost) -> Void) {
        rowsRead += 1
        guard let value = JSONValue.parse(Data(json)) else {
            reject(line: line, NoticeBoardCore.ValidationError(field: nil, "is not valid JSON"))
            return
        }
        do {
            accept(try ImportedPost(json: value))
        } catch {
            reject(line: line, error)
        }
    }

    private mutating func reject(line: Int, _ error: NoticeBoardCore.ValidationError) {
        rejected += 1
        report(line: line, error)
    }

    private mutating func report(line: Int, _ error: NoticeBoardCore.ValidationError) {
        if rejected == reportLimit + 1 {
            FileHandle.standardError.write(Data("(further rejected rows are counted, not listed)\n".utf8))
        }
        guard rejected <= reportLimit else { return }
        let field = error.field.map { "\($0) " } ?? ""
        FileHandle.standardError.write(Data("line \(line): \(field)\(error.message)\n".utf8))
    }
}
