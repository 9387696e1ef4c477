import Foundation

#if os(Linux)
import Glibc
#else
#error("The embedded PostgreSQL runs on Linux only (glibc's posix_spawn, runuser, chown): see README, Platforms")
#endif

/// Runs a program to completion with `posix_spawn` and `waitpid`.
///
/// Foundation's `Process` is not used: on Linux it can miss the exit of a child whose own child
/// daemonises (`pg_ctl start` leaving the postmaster behind) and wait forever on a zombie.
/// Output goes to a file, never a pipe, for the same reason: the daemon inherits it.
enum ChildProcess {
    struct Result {
        var status: Int32
        var output: String
    }

    /// The child keeps only standard input, output and error. Without this a postmaster started
    /// while the server runs inherits its listening socket and connections: after the server
    /// dies, clients connecting to its port wait in a backlog nobody accepts, and a new server
    /// cannot bind the port.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        #if os(Linux)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // glibc 2.34 and later; Swift's Glibc module does not declare it.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            if unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0 { return }
        }
        // Older C libraries: close each descriptor open now (glibc ignores one closed meanwhile).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        #endif
    }

    /// `scratch` names the child's input and output files (`.in`, `.out` are added); by default
    /// they go in the temporary directory.
    static func run(_ executable: String, _ arguments: [String], input: String? = nil, scratch: URL? = nil) throws -> Result {
        let fileManager = FileManager.default
        let scratch = scratch ?? fileManager.temporaryDirectory.appendingPathComponent("noticeboard-\(UUID().uuidString)")
        let inputPath = scratch.path + ".in", outputPath = scratch.path + ".out"
        _ = fileManager.createFile(atPath: inputPath, contents: Data((input ?? "").utf8), attributes: [.posixPermissions: 0o644])
        defer {
            try? fileManager.removeItem(atPath: inputPath)
            try? fileManager.removeItem(atPath: outputPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw EmbeddedPostgresError.commandFailed(program: executable, status: spawned, output: "cannot start") }

        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw EmbeddedPostgresError.commandFailed(program: executable, status: errno, output: "waitpid failed")
            }
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: exitStatus, output: output)
    }
}
