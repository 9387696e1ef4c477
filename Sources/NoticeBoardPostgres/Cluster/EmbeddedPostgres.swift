import Crypto
import Foundation
import Logging

#if os(Linux)
import Glibc
#else
#error("The embedded PostgreSQL runs on Linux only (glibc's posix_spawn, runuser, chown): see README, Platforms")
#endif

/// The embedded default: a private PostgreSQL cluster under the data directory.
///
/// `initdb` on first use (SCRAM password auth, loopback only, no Unix socket), `pg_ctl start`
/// on a free loopback port, and `pg_ctl stop` by whoever started it. A cluster already running
/// on the directory (another `noticeboard` process, or one left behind by a killed server) is
/// reused; a left-behind one is adopted and stopped on exit. PostgreSQL refuses to run as root,
/// so under root the cluster belongs to the `postgres` user (or `nobody`).
public final class EmbeddedPostgres: Sendable {
    public static let username = "noticeboard"
    public static let database = "noticeboard"

    public let dataDirectory: URL
    let binaries: URL
    let runAs: String?
    let logger: Logger

    var clusterDirectory: URL { dataDirectory.appendingPathComponent("postgres") }
    var passwordFile: URL { dataDirectory.appendingPathComponent("postgres-password") }
    var logFile: URL { dataDirectory.appendingPathComponent("postgres.log") }
    /// The port the cluster listens on, kept across restarts.
    var portFile: URL { dataDirectory.appendingPathComponent("postgres-port") }
    /// The pid of the process that started the running cluster and will stop it.
    var ownerFile: URL { dataDirectory.appendingPathComponent("postgres-owner.pid") }

    public init(dataDirectory: URL, logger: Logger) throws {
        self.dataDirectory = dataDirectory.standardizedFileURL
        self.logger = logger
        guard let binaries = Self.findBinaries() else { throw EmbeddedPostgresError.notInstalled }
        self.binaries = binaries
        self.runAs = geteuid() == 0 ? Self.unprivilegedUser() : nil
    }

    /// Starts the cluster (or joins the one running) and returns where to connect.
    /// `ownsCluster` is true when this process must stop it.
    public func start() throws -> (endpoint: DatabaseEndpoint, ownsCluster: Bool) {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        removeScratchLeftovers()
        let password = try loadOrCreatePassword()
        if !FileManager.default.fileExists(atPath: clusterDirectory.appendingPathComponent("PG_VERSION").path) {
            try initialize(password: password)
        }
        var owns = true
        let port: Int
        if let running = runningPort() {
            port = running
            // Another live noticeboard process owns it; otherwise it was left behind: adopt it.
            if let owner = readOwner(), owner != getpid(), isAlive(owner) { owns = false }
            logger.info("joining the embedded PostgreSQL already running", metadata: ["port": "\(port)", "owner": "\(owns ? "us" : "another process")"])
        } else {
            port = try stablePort()
            try run(
                "pg_ctl",
                ["-D", clusterDirectory.path, "-l", logFile.path, "-w", "-t", "120", "-o", "-p \(port)", "start"])
            logger.info("started the embedded PostgreSQL", metadata: ["port": "\(port)", "directory": "\(clusterDirectory.path)"])
        }
        if owns { try "\(getpid())\n".write(to: ownerFile, atomically: true, encoding: .utf8) }
        let endpoint = DatabaseEndpoint(host: "127.0.0.1", port: port, username: Self.username, password: password, database: Self.database)
        return (endpoint, owns)
    }

    /// Stops the cluster (fast shutdown: sessions end, committed data is safe). A cluster that is
    /// not running (it died, or someone stopped it) needs nothing.
    public func stop() {
        removeStagingLeftovers()
        guard isPostmasterAlive else {
            try? FileManager.default.removeItem(at: ownerFile)
            logger.info("the embedded PostgreSQL is not running; nothing to stop")
            return
        }
        do {
            try run("pg_ctl", ["-D", clusterDirectory.path, "-m", "fast", "-w", "-t", "60", "stop"])
            try? FileManager.default.removeItem(at: ownerFile)
            logger.info("stopped the embedded PostgreSQL")
        } catch {
            logger.error("could not stop the embedded PostgreSQL", metadata: ["error": "\(error)"])
        }
    }

    public enum PostmasterState: Sendable, Equatable {
        case running
        /// Stopped the orderly way (`pg_ctl stop`, a shutdown): it removed its pid file.
        case stopped
        /// Gone without removing its pid file: killed, or crashed.
        case died
    }

    /// The postmaster's state, from `postmaster.pid` (no child process). A pid file that exists
    /// but cannot be read now (no descriptor to spare, say) counts as running: only a postmaster
    /// known to be gone is reported so.
    public var postmasterState: PostmasterState {
        let pidFile = clusterDirectory.appendingPathComponent("postmaster.pid")
        guard FileManager.default.fileExists(atPath: pidFile.path) else { return .stopped }
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8) else { return .running }
        guard let pid = Int32(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "") else { return .running }
        return isAlive(pid) ? .running : .died
    }

    public var isPostmasterAlive: Bool { postmasterState == .running }

    /// Starts the cluster again on its port after it died; throws while it cannot (the dead
    /// postmaster's backends may hold its shared memory for a few seconds).
    public func restart(port: Int) throws {
        try run("pg_ctl", ["-D", clusterDirectory.path, "-l", logFile.path, "-w", "-t", "10", "-o", "-p \(port)", "start"])
        try "\(getpid())\n".write(to: ownerFile, atomically: true, encoding: .utf8)
        logger.notice("restarted the embedded PostgreSQL", metadata: ["port": "\(port)"])
    }

    /// Makes the cluster in a staging directory and moves it into place only when complete, so
    /// a start killed midway leaves nothing that looks like a cluster; the next start begins
    /// again. The superuser password reaches `initdb` through a file only its owner can read.
    private func initialize(password: String) throws {
        let fileManager = FileManager.default
        removeStagingLeftovers()
        // A directory without PG_VERSION is an initdb that did not finish: start it again.
        try? fileManager.removeItem(at: clusterDirectory)
        let staging = dataDirectory.appendingPathComponent("\(Self.stagingPrefix)\(getpid())")
        try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: staging) }
        let passwordCopy = dataDirectory.appendingPathComponent("\(Self.stagingPrefix)password-\(getpid())")
        try PrivateFile.write(Array(password.utf8), to: passwordCopy)
        defer { try? fileManager.removeItem(at: passwordCopy) }
        _ = fileManager.createFile(atPath: logFile.path, contents: nil)
        if let runAs {
            try chown([staging, passwordCopy, logFile], to: runAs)
        }
        try fileManager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: staging.path)
        try run(
            "initdb",
            [
                "-D", staging.path, "-U", Self.username, "--pwfile", passwordCopy.path, "--auth", "scram-sha-256",
                "-E", "UTF8", "--locale", "C", "--no-instructions",
            ])
        let settings = """

            # NoticeBoard's embedded cluster: loopback TCP only, password authentication.
            listen_addresses = '127.0.0.1'
            unix_socket_directories = ''
            max_connections = 100
            """
        let configuration = staging.appendingPathComponent("postgresql.conf")
        let handle = try FileHandle(forWritingTo: configuration)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(settings.utf8))
        try handle.close()
        // Single-user mode creates the application database before the server ever listens.
        try run("postgres", ["--single", "-D", staging.path, "postgres"], input: "CREATE DATABASE \(Self.database);\n")
        try fileManager.moveItem(at: staging, to: clusterDirectory)
    }

    static let stagingPrefix = "postgres.initializing-"
    /// A child program's input and output files: in the data directory's staging area (not the
    /// temporary directory, where a killed start left them for good), named by the pid of the
    /// process that ran it, so leftovers of dead processes are told from files in use.
    static let scratchPrefix = stagingPrefix + "io-"

    func scratchFile() -> URL {
        dataDirectory.appendingPathComponent("\(Self.scratchPrefix)\(getpid())-\(UUID().uuidString)")
    }

    /// The pid in a scratch file's name, if the name is one.
    static func scratchOwner(_ name: String) -> Int32? {
        guard name.hasPrefix(scratchPrefix) else { return nil }
        return Int32(name.dropFirst(scratchPrefix.count).prefix { $0 != "-" })
    }

    /// What killed first starts left behind; an `initdb` orphaned by the kill may still be
    /// writing there, so this runs again when the cluster stops. Scratch files of live processes
    /// (this one included) are theirs.
    func removeStagingLeftovers() {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: dataDirectory.path)) ?? [] where name.hasPrefix(Self.stagingPrefix) {
            if let owner = Self.scratchOwner(name), isAlive(owner) { continue }
            try? fileManager.removeItem(at: dataDirectory.appendingPathComponent(name))
        }
    }

    /// Scratch files of processes that died (killed while a child ran); safe at any time.
    func removeScratchLeftovers() {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: dataDirectory.path)) ?? [] {
            if let owner = Self.scratchOwner(name), !isAlive(owner) { try? fileManager.removeItem(at: dataDirectory.appendingPathComponent(name)) }
        }
    }


    /// The port of a live postmaster on this cluster, from `postmaster.pid`.
    func runningPort() -> Int? {
        let pidFile = clusterDirectory.appendingPathComponent("postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 4, let pid = Int32(lines[0]), let port = Int(lines[3]), isAlive(pid) else { return nil }
        guard (try? run("pg_ctl", ["-D", clusterDirectory.path, "status"])) != nil else { return nil }
        return port
    }

    private func readOwner() -> Int32? {
        (try? String(contentsOf: ownerFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    private func loadOrCreatePassword() throws -> String {
        if let existing = try? String(contentsOf: passwordFile, encoding: .utf8), !existing.isEmpty {
            return existing.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let password = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
        try PrivateFile.write(Array(password.utf8), to: passwordFile)
        return password
    }

    /// Runs a PostgreSQL program, as the unprivileged user when we are root.
    @discardableResult
    func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
        let executable = binaries.appendingPathComponent(program).path
        let result = if let runAs {
            // From `/`: the unprivileged user may not be allowed into our working directory.
            try ChildProcess.run(
                "/usr/sbin/runuser", ["-u", runAs, "--", "/usr/bin/env", "-C", "/", executable] + arguments, input: input, scratch: scratchFile())
        } else {
            try ChildProcess.run(executable, arguments, input: input, scratch: scratchFile())
        }
        guard result.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(program: program, status: result.status, output: result.output)
        }
        return result.output
    }

    private func chown(_ urls: [URL], to user: String) throws {
        guard let entry = getpwnam(user) else { throw EmbeddedPostgresError.noUnprivilegedUser }
        for url in urls where Glibc.chown(url.path, entry.pointee.pw_uid, entry.pointee.pw_gid) != 0 {
            throw EmbeddedPostgresError.commandFailed(program: "chown", status: errno, output: url.path)
        }
    }

    /// The port the cluster ran on before, if it is free, else a new free one (remembered): other
    /// processes connected to the cluster find it again after a restart.
    private func stablePort() throws -> Int {
        if let text = try? String(contentsOf: portFile, encoding: .utf8), let previous = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            (try? freeLoopbackPort(trying: previous)) == previous
        {
            return previous
        }
        let port = try freeLoopbackPort()
        try "\(port)\n".write(to: portFile, atomically: true, encoding: .utf8)
        return port
    }

    /// A free loopback port: `trying` if it is free, else any the system gives.
    private func freeLoopbackPort(trying preferred: Int = 0) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw EmbeddedPostgresError.noFreePort }
        defer { close(fd) }
        // As PostgreSQL binds: a port whose old connections linger in TIME_WAIT is free to it.
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(preferred).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw EmbeddedPostgresError.noFreePort }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `NOTICEBOARD_POSTGRES_BIN` if set, else `initdb` and `pg_ctl` on PATH, else the newest
    /// `/usr/lib/postgresql/*/bin`.
    static func findBinaries() -> URL? {
        let fileManager = FileManager.default
        if let configured = ProcessInfo.processInfo.environment["NOTICEBOARD_POSTGRES_BIN"] {
            let directory = URL(fileURLWithPath: configured)
            return fileManager.isExecutableFile(atPath: directory.appendingPathComponent("initdb").path) ? directory : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":").map(String.init) {
            let candidate = URL(fileURLWithPath: directory)
            if fileManager.isExecutableFile(atPath: candidate.appendingPathComponent("initdb").path),
                fileManager.isExecutableFile(atPath: candidate.appendingPathComponent("pg_ctl").path)
            {
                return candidate.appendingPathComponent("initdb").resolvingSymlinksInPath().deletingLastPathComponent()
            }
        }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let candidate = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
            if fileManager.isExecutableFile(atPath: candidate.appendingPathComponent("initdb").path) { return candidate }
        }
        return nil
    }

    static func unprivilegedUser() -> String? {
        ["postgres", "nobody"].first { getpwnam($0) != nil }
    }
}

public enum EmbeddedPostgresError: Error, CustomStringConvertible {
    case notInstalled
    case noUnprivilegedUser
    case noFreePort
    case commandFailed(program: String, status: Int32, output: String)

    public var description: String {
        switch self {
        case .notInstalled:
            "PostgreSQL is not installed: install it with `sudo apt-get install -y postgresql` (or pass --database-url)"
        case .noUnprivilegedUser: "running as root, but there is no 'postgres' or 'nobody' user to run PostgreSQL as"
        case .noFreePort: "no free loopback port for the embedded PostgreSQL"
        case .commandFailed(let program, let status, let output):
            "\(program) failed with status \(status): \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
