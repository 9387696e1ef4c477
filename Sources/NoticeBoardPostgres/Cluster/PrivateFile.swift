import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secrets on disk (passwords, keys): readable by their owner alone from the first byte.
/// Foundation's writes create the file with the umask's mode and tighten it afterwards.
public enum PrivateFile {
    /// Creates `url` with mode 0600 and `bytes` in it; a file already there is replaced.
    public static func write(_ bytes: [UInt8], to url: URL) throws {
        unlink(url.path)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw EmbeddedPostgresError.commandFailed(program: "open", status: errno, output: url.path) }
        defer { close(fd) }
        #if canImport(Glibc)
        let written = Glibc.write(fd, bytes, bytes.count)
        #else
        let written = Darwin.write(fd, bytes, bytes.count)
        #endif
        guard written == bytes.count else {
            throw EmbeddedPostgresError.commandFailed(program: "write", status: errno, output: url.path)
        }
    }
}
