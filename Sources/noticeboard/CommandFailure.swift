import ArgumentParser
import Foundation

/// Prints one clear line to standard error and exits non-zero, without a usage dump.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("noticeboard: \(message)\n".utf8))
    return ExitCode.failure
}
