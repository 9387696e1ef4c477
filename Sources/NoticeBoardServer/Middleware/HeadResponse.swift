import Hummingbird

/// A `HEAD` request, routed to its `GET` handler (`RouteTable`), is answered with the same
/// status and headers and no body.
enum HeadResponse {
    static func strip(_ response: inout Response) {
        // The length a GET would send; a handler that answered HEAD itself (the file middleware)
        // has set it already, and a streamed body has none to give.
        let length = response.headers[.contentLength].flatMap { Int($0) } ?? response.body.contentLength
        response.body = ResponseBody(contentLength: length) { writer in try await writer.finish(nil) }
    }
}
