import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdWebSocket
import StoryPlayer

// MARK: - Routes

extension StudioServer {
    func addRoutes(to router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { [self] _, _ in
            var response = StudioResponses.bytes(Array(StudioPage.html.utf8), type: "text/html; charset=utf-8")
            response.headers[.setCookie] = "\(StudioToken.cookieName)=\(configuration.token); Path=/; HttpOnly; SameSite=Strict"
            return response
        }
        router.get("/api/state") { [self] _, _ in
            StudioResponses.json(stateJSON())
        }
        router.get("/api/frame") { [self] request, _ -> Response in
            try await frameResponse(request)
        }
        router.post("/api/render") { [self] request, _ -> Response in
            try await renderResponse(request)
        }
        router.get("/api/parameters") { [self] _, _ in
            StudioResponses.json(variant.form(excluding: configuration.outputFolder))
        }
        router.post("/api/parameters") { [self] request, _ -> Response in
            try await parametersResponse(request)
        }
        router.post("/api/cancel") { [self] _, _ in
            StudioResponses.json(["cancelled": job.cancel()])
        }
        router.get("/files/**") { [self] request, _ in
            serve(request.uri.path, prefix: "/files/", from: boardFolder)
        }
        router.get("/out/**") { [self] request, _ in
            serve(request.uri.path, prefix: "/out/", from: configuration.outputFolder)
        }
        router.ws("/ws") { [hub] inbound, outbound, _ in
            let (id, stream) = hub.subscribe()
            defer { hub.unsubscribe(id) }
            let writer = Task {
                for await text in stream { try await outbound.write(.text(text)) }
            }
            // The page sends nothing; reading is how the end of the connection is seen.
            for try await _ in inbound {}
            writer.cancel()
        }
    }

    /// `GET /api/frame?n=N[&half=1]`: frame N as PNG, with the frame it is, the storyboard's
    /// version and what each live story on screen shows in headers.
    private func frameResponse(_ request: Request) async throws -> Response {
        guard let board = session.board else {
            return StudioResponses.problem(session.problems.first ?? StudioProblem(.storyboard, "no storyboard yet"))
        }
        // A frame number past either end is the nearest frame (the page may ask for one a
        // hot reload took away; `X-Studio-Frame` says which it got). One that is no number
        // at all is the caller's mistake: it was frame 0, answered 200.
        let given = request.uri.queryParameters.get("n")
        guard let index = given.map({ Int($0) }) ?? 0 else {
            return StudioResponses.problem(StudioProblem(.frame, path: "n", "not a frame number: \(given ?? "")"), status: .badRequest)
        }
        let half = request.uri.queryParameters.get("half") == "1"
        do {
            let picture = try await frames.picture(index, of: board, half: half)
            let frame = min(max(0, index), board.frameCount - 1)
            // What each live story on screen shows: `id=loading` or `id=picture`, comma-separated.
            let live = self.live.showing(picture.live).map { "\($0.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")=\($0.showing.word)" }
            return StudioResponses.bytes(picture.png, type: "image/png", headers: [
                HTTPField.Name("X-Studio-Frame")!: "\(frame)",
                HTTPField.Name("X-Studio-Version")!: "\(board.version)",
                HTTPField.Name("X-Studio-Live")!: live.joined(separator: ","),
            ])
        } catch {
            return StudioResponses.problem(error, status: .internalServerError)
        }
    }

    /// `POST /api/render`: starts the Render button's render, unless refused or one is running.
    private func renderResponse(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        let options = (try? JSONDecoder().decode(StudioRenderJob.Options.self, from: Data(body.readableBytesView))) ?? .init()
        if let refusal = renderRefusal(options) { return refusal }
        do {
            let started = try job.start(options)
            return StudioResponses.json(["started": started], status: started ? .accepted : .conflict)
        } catch {
            return StudioResponses.problem(error, status: .internalServerError)
        }
    }

    /// `POST /api/parameters`: {"values": {name: text}} from the form, or {"row": n} from the
    /// row selector. The variant changes only when the storyboard reads without an error with
    /// it; then the preview is read again, and every page hears of the new version.
    private func parametersResponse(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 256 * 1024)
        guard let chosen = try? JSONDecoder().decode(StudioVariantChoice.self, from: Data(body.readableBytesView)),
              (chosen.values == nil) != (chosen.row == nil) else {
            return StudioResponses.problem(StudioProblem(.storyboard, "give {\"values\": {…}} or {\"row\": n}"), status: .badRequest)
        }
        do throws(StudioLoadFailure) {
            if let row = chosen.row { try variant.choose(row: row) } else { try variant.choose(values: chosen.values ?? [:]) }
        } catch {
            return StudioResponses.json(StudioProblems(problems: error.problems), status: .unprocessableContent)
        }
        session.reload()
        return StudioResponses.json(variant.form(excluding: configuration.outputFolder))
    }

    /// Why a render asked for is refused, as the answer to send; nil when it may start.
    private func renderRefusal(_ options: StudioRenderJob.Options) -> Response? {
        if let size = options.size, !StudioServer.isCanvasSize(size) {
            return StudioResponses.problem(StudioProblem(.render, path: "size", "not a size WxH: \(size)"), status: .badRequest)
        }
        // The render reads the file as saved: with errors it would stop before its first
        // frame, so the button is refused (the page keeps it off, and says why) until the
        // storyboard reads without one.
        guard session.board == nil || !session.problems.isEmpty else { return nil }
        let count = session.problems.count
        return StudioResponses.problem(StudioProblem(.render, "the storyboard has \(count == 0 ? "not been read without errors" : "\(count) error\(count == 1 ? "" : "s")"); "
                                                     + "fix it before rendering"), status: .unprocessableContent)
    }
}
