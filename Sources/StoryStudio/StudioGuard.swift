import Foundation
import Hummingbird

/// Refuses, before any route, what a page of this studio never sends (issue 31, item 6):
/// - a Host header other than `localhost:PORT` or `127.0.0.1:PORT`, which is what a page of
///   another site, whose name was pointed at 127.0.0.1 (DNS rebinding), sends;
/// - a request without the token printed at start (as Jupyter does), the WebSocket included:
///   another local user, or a page that guesses the port, does not know it.
struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    let token: String
    /// Filled in once the server listens (the port may have been chosen by the system).
    let port: @Sendable () -> Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port()
        let allowed = ["localhost:\(port)", "127.0.0.1:\(port)"]
        guard let host = request.head.authority, allowed.contains(host.lowercased()) else {
            return StudioResponses.refusal(.forbidden, "this studio answers only to localhost:\(port) and 127.0.0.1:\(port)")
        }
        // The token is in the URL; the page's own load sets it as a SameSite=Strict cookie too, so
        // the report's relative links (its frames) carry it, as Jupyter's pages do.
        let given = request.uri.queryParameters.get("token") ?? StudioGuard.cookie(in: request)
        guard let given, StudioGuard.same(given, token) else {
            return StudioResponses.refusal(.unauthorized, "the token printed when the studio started is missing or wrong")
        }
        return try await next(request, context)
    }

    static func cookie(in request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == StudioToken.cookieName { return String(pair[1]) }
        }
        return nil
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The token's name as a cookie.
enum StudioToken {
    static let cookieName = "studio_token"
}
