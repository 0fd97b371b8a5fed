import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdWebSocket
import Logging
import StoryPlayer
import Synchronization

/// `render-stories studio BOARD.json`: one page on 127.0.0.1 that previews a storyboard frame by
/// frame, reloads it when it or its media are saved, shows its lifecycle lanes, and runs the
/// full render (issue 31).
public final class StudioServer: Sendable {
    public struct Configuration: Sendable {
        public var boardPath: String
        /// 0: a port the system chooses (tests).
        public var port: Int
        /// Where the Render button's render writes.
        public var outputFolder: String
        /// The render-stories executable the Render button runs.
        public var executable: String
        /// Random unless given (tests give none either: they read it from the URL printed).
        public var token: String
        /// The variant shown first: values of the storyboard's parameters (`--set`), by name.
        public var parameters: [String: String]
        /// `--data`: rows the page's row selector offers (the first is shown first), named by
        /// their `nameFrom` column.
        public var data: BatchData?
        public var nameFrom: String?

        public init(boardPath: String, port: Int = 4747, outputFolder: String, executable: String,
                    token: String = StudioServer.randomToken(), parameters: [String: String] = [:],
                    data: BatchData? = nil, nameFrom: String? = nil) {
            self.boardPath = boardPath
            self.parameters = parameters
            self.data = data
            self.nameFrom = nameFrom
            self.port = port
            self.outputFolder = outputFolder
            self.executable = executable
            self.token = token
        }
    }

    public let configuration: Configuration
    let hub = StudioHub()
    let session: StudioSession
    let live: StudioLive
    let frames: StudioFrames
    let job: StudioRenderJob
    let variant: StudioVariant
    private let boundPort = Atomic<Int>(0)
    private let stopping = StudioStopping()

    public init(_ configuration: Configuration) {
        var configuration = configuration
        configuration.boardPath = StudioServer.absolute(configuration.boardPath)
        configuration.outputFolder = StudioServer.absolute(configuration.outputFolder)
        self.configuration = configuration
        let hub = self.hub
        live = StudioLive { hub.broadcast(["type": "live"]) }
        frames = StudioFrames(live: live)
        let variant = StudioVariant(boardPath: configuration.boardPath, common: configuration.parameters,
                                    rows: configuration.data.map { StudioVariant.rows(of: $0, nameFrom: configuration.nameFrom) } ?? [])
        self.variant = variant
        session = StudioSession(path: configuration.boardPath, parameters: { variant.values }, hub: hub,
                                preview: { [live] in live.preview($0) }) { [frames] board in
            frames.prepare(board)
        }
        job = StudioRenderJob(executable: configuration.executable, boardPath: configuration.boardPath,
                              parameters: { variant.values }, outputFolder: configuration.outputFolder, hub: hub)
    }

    /// 32 random bytes as hex: the token every request must carry.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        return url.standardizedFileURL.path
    }

    /// The page's address, with its token; nil until the server listens.
    public var url: String? {
        let port = boundPort.load(ordering: .acquiring)
        return port == 0 ? nil : "http://127.0.0.1:\(port)/?token=\(configuration.token)"
    }

    var boardFolder: String { (configuration.boardPath as NSString).deletingLastPathComponent }

    /// Serves until `stop()`. `started` gets the page's URL once the server listens. Returns
    /// once the server has stopped and a render the Render button started has ended.
    public func run(started: @escaping @Sendable (String) -> Void) async throws {
        session.reload()
        session.watch()
        defer {
            session.stopWatching()
            job.stop()
            frames.close()
            live.close()
        }
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: StudioGuard(token: configuration.token, port: { [self] in boundPort.load(ordering: .acquiring) }))
        addRoutes(to: router)
        var logger = Logger(label: "studio")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            // 127.0.0.1 only: the studio reads local files and runs renders, it is never a
            // service for other machines.
            configuration: .init(address: .hostname("127.0.0.1", port: configuration.port), serverName: nil),
            onServerRunning: { [self] channel in
                boundPort.store(channel.localAddress?.port ?? configuration.port, ordering: .releasing)
                if let url { started(url) }
            },
            logger: logger
        )
        try await stopping.run(app, logger: logger)
    }

    /// Stops serving (the CLI calls it on SIGINT and SIGTERM; the server takes no signal of its
    /// own): a render running is sent SIGINT, on which it stops at its next frame and finishes
    /// its clips, as a render's Ctrl-C stops it; the server finishes what it is answering and
    /// closes its pages' connections. Called again, the render gets a second SIGINT, which stops
    /// it at once, as a second Ctrl-C does.
    public func stop() {
        _ = job.cancel()
        stopping.stop()
    }

    /// `WxH` within the sides a canvas may have.
    static func isCanvasSize(_ text: String) -> Bool {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return false }
        return Canvas.sides.contains(w) && Canvas.sides.contains(h)
    }

    func serve(_ rawPath: String, prefix: String, from folder: String) -> Response {
        // The raw path, before any normalising, so `..` is seen as sent.
        guard rawPath.hasPrefix(prefix) else { return StudioResponses.refusal(.forbidden, "not served") }
        switch StudioFiles(root: folder).resolve(rawPath.dropFirst(prefix.count)) {
        case .refused(let reason):
            return StudioResponses.refusal(.forbidden, reason)
        case .missing:
            return StudioResponses.refusal(.notFound, "no such file")
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                return StudioResponses.refusal(.notFound, "cannot read that file")
            }
            return StudioResponses.bytes(data, type: StudioFiles.contentType(path))
        }
    }

    // MARK: - What the page shows beside the player

    struct State: Encodable {
        let version: Int
        let problems: [StudioProblem]
        let name: String
        let board: String
        let output: String
        let clip: String
        let width: Int
        let height: Int
        let fps: Double
        let frames: Int
        let marks: [StudioMark]
        let live: [String]
        let max_alive: Int
        let rendering: Bool
        /// The variant's values, which the page's command shows as `--set`.
        let values: [String: String]
        /// The storyboard's music, which the page plays beside its frames.
        let music: StudioMusic?
    }

    func stateJSON() -> String {
        let board = session.board
        let canvas = board?.board.canvas
        let state = State(version: board?.version ?? 0, problems: session.problems,
                          name: (configuration.boardPath as NSString).lastPathComponent,
                          board: configuration.boardPath, output: configuration.outputFolder, clip: job.clipName,
                          width: canvas?.width ?? 0, height: canvas?.height ?? 0, fps: canvas?.fps ?? 30,
                          frames: board?.frameCount ?? 0, marks: board?.marks ?? [], live: board?.liveStories ?? [],
                          max_alive: 2, rendering: job.isRunning, values: variant.values,
                          music: board.flatMap { StudioMusic($0.board, folder: boardFolder) })
        let encoded = String(decoding: (try? JSONEncoder().encode(state)) ?? Data("{}".utf8), as: UTF8.self)
        // The trace's lines are JSON objects already: spliced in as the `events` array.
        let events = (board?.trace ?? "").split(separator: "\n").joined(separator: ",")
        return String(encoded.dropLast()) + ",\"events\":[" + events + "]}"
    }
}

/// An answer that is only problems.
struct StudioProblems: Encodable {
    let problems: [StudioProblem]
}

/// The body of `POST /api/parameters`.
struct StudioVariantChoice: Decodable {
    let values: [String: String]?
    let row: Int?
}
