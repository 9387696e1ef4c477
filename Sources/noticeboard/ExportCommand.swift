import ArgumentParser
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every post as NDJSON (one JSON object per line), streamed in id order.",
        discussion: """
            The lines are what `noticeboard import` reads: a board exported and imported elsewhere keeps its \
            positions, messages, tags, times and statuses. Deleted posts have no text left and are not written.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(name: .shortAndLong, help: "The file to write. Default: standard output.") var output: String?
    @Flag(help: "Only visible posts (default: visible and hidden).") var visibleOnly = false

    func run() async throws {
        let sink: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output)
            else { throw fail("cannot write \(output)") }
            sink = handle
        } else {
            sink = FileHandle.standardOutput
        }
        let visibleOnly = self.visibleOnly
        let count = try await withMigratedClient(database) { client, logger in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var pending = Data()
            var count = 0
            try await PostgresPostArchive(client: client, logger: logger).forEachPost(visibleOnly: visibleOnly) { post, status, replies in
                pending.append(try encoder.encode(ExportedPost(post: post, status: status, replies: replies)))
                pending.append(UInt8(ascii: "\n"))
                count += 1
                if pending.count >= 1 << 20 {
                    try sink.write(contentsOf: pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            try sink.write(contentsOf: pending)
            return count
        }
        if output != nil { try sink.close() }
        FileHandle.standardError.write(Data("Exported \(count) posts.\n".utf8))
    }
}

/// One exported line: the API's post object plus its moderation status and its thread.
struct ExportedPost: Encodable {
    let post: Post
    let status: PostStatus
    let replies: [ArchivedReply]

    struct Reply: Encodable {
        var message: String
        var createdAt: String
        var status: String
    }

    enum CodingKeys: String, CodingKey { case status, replies }

    func encode(to encoder: any Encoder) throws {
        try post.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status.rawValue, forKey: .status)
        try container.encode(
            replies.map { Reply(message: $0.message, createdAt: Timestamp.format(milliseconds: $0.createdAt), status: $0.status.rawValue) },
            forKey: .replies)
    }
}
