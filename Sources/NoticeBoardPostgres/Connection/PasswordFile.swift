import Foundation

/// libpq's password file (`PGPASSFILE`, else `~/.pgpass`): lines `host:port:database:user:password`,
/// `*` matching anything, `\:` and `\\` escaped. It lets a URL name no password, so none is on a
/// command line or in `ps`. As libpq does, a file others may read is ignored.
public enum PasswordFile {
    /// The password for this host, port, database and user, or nil.
    public static func password(host: String, port: Int, database: String, username: String,
                                environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let path = path(environment: environment), isPrivate(path),
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, username]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    static func path(environment: [String: String]) -> String? {
        if let path = environment["PGPASSFILE"], !path.isEmpty { return path }
        return environment["HOME"].map { $0 + "/.pgpass" }
    }

    /// Readable by its owner alone (mode 0600 or stricter).
    static func isPrivate(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = attributes[.posixPermissions] as? NSNumber
        else { return false }
        return mode.intValue & 0o077 == 0
    }

    /// One line's fields, with `\:` and `\\` unescaped.
    static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 4 {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
