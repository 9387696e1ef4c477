import Foundation

/// This process's name in the change feed: every connection it opens starts with
/// `noticeboard.origin` set to it, and `post_changes` rows record it (migration 0015).
public enum ChangeOrigin {
    public static let thisProcess = "p" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)

    static let startupParameter = ("noticeboard.origin", thisProcess)
}
