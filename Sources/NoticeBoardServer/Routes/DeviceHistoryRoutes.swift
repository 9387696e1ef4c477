import Hummingbird
import NoticeBoardCore

/// "My notes": `GET /api/v1/me/posts` and `/api/v1/me/replies`, what the request's device key made.
struct DeviceHistoryRoutes: Sendable {
    let board: Board
    let identity: ClientIdentity

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/api/v1/me/posts", use: posts)
        routes.on(.get, "/api/v1/me/replies", use: replies)
    }

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> Response {
        let device = try identity.requiredDeviceHash(of: request)
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let page = try await board.posts(madeBy: device, limit: try parameters.limit(), before: try parameters.timeCursor())
        let marks = await board.viewerMarks(for: page.items.map(\.post), deviceHash: device)
        let posts = page.items.map { item in
            var json = PostJSON(post: item.post)
            json.viewer = marks?[item.post.id]
            json.hiddenForAuthor = item.status == .hidden
            return json
        }
        return JSONResponse.make(PageJSON<PostJSON>.posts(posts, nextCursor: page.nextCursor))
    }

    @Sendable func replies(_ request: Request, context: AppRequestContext) async throws -> Response {
        let device = try identity.requiredDeviceHash(of: request)
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let page = try await board.replies(madeBy: device, limit: try parameters.limit(), before: try parameters.timeCursor())
        let replies = page.items.map { item in
            var json = ReplyJSON(item.reply, deviceHash: device)
            json.hiddenForAuthor = item.status == .hidden
            return json
        }
        return JSONResponse.make(PageJSON(itemsKey: "replies", items: replies, nextCursor: page.nextCursor))
    }
}
