import HTTPTypes
import Hummingbird
import NoticeBoardCore

/// What every request passes through, in one middleware: its id and log line
/// (`RequestIdentity`), CORS (`CORSPolicy`), the URL's length (`RequestLimits`), safe paths
/// (`PathSafety`), errors as the contract's JSON (`ErrorTranslator`), metrics
/// (`RequestMetrics`), large answers gzipped (`AnswerCompression`), `HEAD` without a body (`HeadResponse`) and the security headers
/// (`SecurityHeaders`), and the page's files where no route answers (`PageFilesMiddleware`).
/// One middleware rather than one per concern, because each layer of Hummingbird's middleware
/// chain is an async call of its own.
struct RequestPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let cors: CORSPolicy
    let errors: ErrorTranslator
    let files: PageFilesMiddleware<Context>
    let metrics = RequestMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id = RequestIdentity.adopt(request, logger: &context.logger)
        let started = ContinuousClock.now
        var response: Response
        if let preflight = cors.preflight(request) {
            response = preflight
        } else {
            let active = metrics.active(request.method)
            active.increment()
            defer { active.decrement() }
            var failed = false
            do {
                try RequestLimits.check(request)
                try PathSafety.check(request)
                response = try await files.handle(request, context: context, next: next)
                try PathSafety.checkRedirect(response, for: request)
                try await AnswerCompression.apply(to: &response, for: request)
            } catch {
                failed = true
                response = try errors.response(for: error, request: request, context: context)
            }
            cors.decorate(&response, for: request)
            metrics.record(route: context.endpointPath, method: request.method, status: response.status, failed: failed, since: started)
        }
        if request.method == .head { HeadResponse.strip(&response) }
        SecurityHeaders.add(to: &response, path: request.uri.path)
        // Appended: no handler sets it, and replacing a field searches the whole list.
        response.headers.append(HTTPField(name: RequestIdentity.headerName, value: id))
        RequestIdentity.logFinished(request, response, since: started, logger: context.logger)
        return response
    }
}
