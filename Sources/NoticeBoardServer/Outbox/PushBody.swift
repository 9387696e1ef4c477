import NoticeBoardCore

/// A push's JSON: `{"post": …}` for a new note, `{"reply": …, "post": {"id", "message"}}` for a
/// reply to yours. Messages are shortened (and `"truncated": true` added) until the whole fits
/// in one push record (`WebPushEncryption.maxPlaintext`).
enum PushBody {
    static func post(_ post: Post) -> [UInt8] {
        let make = { (message: String, truncated: Bool) -> [UInt8] in
            var shortened = post
            shortened.message = message
            return Array((#"{"post":"# + JSONResponse.encode(PostJSON(post: shortened)) + (truncated ? #","truncated":true}"# : "}")).utf8)
        }
        let whole = make(post.message, false)
        guard whole.count > WebPushEncryption.maxPlaintext else { return whole }
        return make(shortened(post.message) { make($0, true).count <= WebPushEncryption.maxPlaintext } ?? "", true)
    }

    /// The note's text gives way first: the reply is what the person is told of.
    static func reply(_ reply: Reply, on post: Post) -> [UInt8] {
        let make = { (noteText: String, replyText: String, truncated: Bool) -> [UInt8] in
            var shortened = reply
            shortened.message = replyText
            let note = JSONResponse.encode(NoteReference(id: post.id, message: noteText))
            return Array((#"{"reply":"# + JSONResponse.encode(ReplyJSON(shortened)) + #","post":"# + note
                + (truncated ? #","truncated":true}"# : "}")).utf8)
        }
        let fits = { (body: [UInt8]) in body.count <= WebPushEncryption.maxPlaintext }
        guard !fits(make(post.message, reply.message, false)) else { return make(post.message, reply.message, false) }
        if let noteText = shortened(post.message, fits: { fits(make($0, reply.message, true)) }) {
            return make(noteText, reply.message, true)
        }
        let replyText = shortened(reply.message) { fits(make("", $0, true)) } ?? ""
        return make("", replyText, true)
    }

    private struct NoteReference: Encodable {
        let id: Int64
        let message: String
    }

    /// `text` cut by quarters (with an ellipsis) until `fits` holds; nil when it fits whole, or
    /// when nothing of it does.
    static func shortened(_ text: String, fits: (String) -> Bool) -> String? {
        guard !fits(text) else { return nil }
        var keep = text.count
        while keep > 0 {
            keep = keep * 3 / 4
            let candidate = keep > 0 ? String(text.prefix(keep)) + "…" : ""
            if fits(candidate) { return candidate }
        }
        return nil
    }
}
