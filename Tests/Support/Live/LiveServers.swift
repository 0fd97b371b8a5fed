import Foundation
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Real servers on 127.0.0.1 for the live-source tests: each is a child process that the test
/// stops again, and readiness is always found by polling, never by sleeping a fixed time.
public enum LiveServers {
    /// A TCP port nothing listens on right now.
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on the port.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether a TCP socket listens on the port, from /proc/net/tcp: unlike `accepts`, it does
    /// not connect, so it does not use up a server that serves one client (`ffmpeg -listen 1`).
    public static func tcpListening(port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let hex = String(format: ":%04X ", port)
        return table.split(separator: "\n").contains { $0.contains(hex) && $0.contains(" 0A ") }
    }

    /// Whether a UDP socket is bound to the port (an SRT listener), from /proc/net/udp.
    public static func udpBound(port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return false }
        let hex = String(format: ":%04X ", port)
        return table.split(separator: "\n").contains { $0.contains(hex) }
    }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass.
    @discardableResult
    public static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// The full path of a program, or nil when it is not installed.
    public static func which(_ program: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for folder in folders + ["/usr/sbin", "/sbin"] {
            let path = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Skips the test, with a clear message, when a server program is missing. `make test`
    /// installs them all, so in CI (`CI=true`) a missing one fails the test instead: a green run
    /// must never hide live tests that did not run.
    public static func require(_ programs: String...) throws {
        try require(programs)
    }

    public static func require(_ programs: [String]) throws {
        for program in programs where which(program) == nil {
            throw unavailable("\(program) is not installed (make test installs it)")
        }
    }

    /// The error for a server that cannot be had: a skip on a developer's machine, a failure
    /// under `CI=true`.
    public static func unavailable(_ message: String) -> any Error {
        ProcessInfo.processInfo.environment["CI"] == "true" ? ServerUnavailable(message: message) : XCTSkip(message)
    }
}

/// A server a test needs did not start, under `CI=true`: the test fails with why.
public struct ServerUnavailable: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "server unavailable: \(message)" }
}

/// Which tracks a live publisher sends.
public enum PublishedTracks: String, CaseIterable {
    case videoAndSound, videoOnly, soundOnly

    public var arguments: [String] {
        switch self {
        case .videoAndSound: []
        case .videoOnly: ["-an"]
        case .soundOnly: ["-vn"]
        }
    }
}

/// A child process that is terminated (then killed) when the test is done with it.
public final class ServerProcess: Sendable {
    public let process = Process()
    public let name: String
    public let log: String

    public init(_ program: String, _ arguments: [String], folder: String, name: String) throws {
        self.name = name
        log = (folder as NSString).appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: LiveServers.which(program) ?? program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = FileHandle(forWritingAtPath: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public var isRunning: Bool { process.isRunning }

    /// What the process wrote, for failure messages.
    public var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    public func stop() {
        if process.isRunning {
            process.terminate()
            if !LiveServers.waitUntil(2, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        }
        // Foundation lets go of a Process only once a wait has seen its exit: until then the
        // Process and its run-loop source hold each other, and LeakSanitizer (`make sanitize`)
        // reports both, with everything they hold.
        if process.processIdentifier != 0 { process.waitUntilExit() }
    }

    deinit { stop() }
}

/// The servers one test uses, stopped in reverse order at the end of the test (or earlier, from
/// another thread, by a test that kills its servers mid-stream).
public final class ServerSet: Sendable {
    public let folder = ScratchFolder()
    private let processes = Mutex<[ServerProcess]>([])

    public init() {}

    public func start(_ program: String, _ arguments: [String], name: String) throws -> ServerProcess {
        let process = try ServerProcess(program, arguments, folder: folder.path, name: name)
        processes.withLock { $0.append(process) }
        return process
    }

    /// `python3 -m http.server` serving `root` on a free port; returns the base URL.
    public func httpServer(root: String) throws -> String {
        let port = LiveServers.freePort()
        let server = try start("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root],
                               name: "http-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("the HTTP server did not start: \(server.output)")
        }
        return "http://127.0.0.1:\(port)"
    }

    /// Python's HTTP server behind TLS with a self-signed certificate for 127.0.0.1 (made with
    /// `openssl req`), serving `root` on a free port; returns the base URL. No client trusts it.
    public func httpsServer(root: String) throws -> String {
        try LiveServers.require("python3", "openssl")
        let keys = folder.file("tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        let certificate = Process()
        certificate.executableURL = URL(fileURLWithPath: try XCTUnwrap(LiveServers.which("openssl")))
        certificate.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                 "-keyout", keys + "/key.pem", "-out", keys + "/cert.pem"]
        certificate.standardError = FileHandle.nullDevice
        try certificate.run()
        certificate.waitUntilExit()
        XCTAssertEqual(certificate.terminationStatus, 0, "openssl made no certificate")
        let port = LiveServers.freePort()
        let script = """
        import http.server, ssl, functools
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory="\(root)")
        server = http.server.HTTPServer(("127.0.0.1", \(port)), handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain("\(keys)/cert.pem", "\(keys)/key.pem")
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.serve_forever()
        """
        let server = try start("python3", ["-c", script], name: "https-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("the HTTPS server did not start: \(server.output)")
        }
        return "https://127.0.0.1:\(port)"
    }

    /// A TCP server that accepts connections and never answers.
    public func stallingServer() throws -> Int {
        let port = LiveServers.freePort()
        let script = """
        import socket, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", \(port))); s.listen(16); held = []
        while True:
            c, _ = s.accept(); held.append(c)
        """
        _ = try start("python3", ["-c", script], name: "stall-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else { throw LiveServers.unavailable("stalling server did not start") }
        return port
    }

    /// nginx with the RTMP module on a free port; returns the port.
    public func rtmpServer() throws -> Int { try rtmpServer(port: LiveServers.freePort()) }

    /// nginx with the RTMP module on `port` (an ingest started late on the port a client
    /// already tries); returns the port.
    public func rtmpServer(port: Int) throws -> Int {
        let root = folder.file("nginx-\(port)")
        try FileManager.default.createDirectory(atPath: root + "/logs", withIntermediateDirectories: true)
        let module = ["/usr/lib/nginx/modules/ngx_rtmp_module.so", "/usr/share/nginx/modules/ngx_rtmp_module.so"]
            .first { FileManager.default.fileExists(atPath: $0) }
        guard let module else { throw LiveServers.unavailable("nginx's RTMP module is not installed (make test installs libnginx-mod-rtmp)") }
        let config = """
        load_module \(module);
        daemon off;
        master_process off;
        pid \(root)/nginx.pid;
        error_log \(root)/logs/error.log;
        events { worker_connections 64; }
        rtmp { server { listen 127.0.0.1:\(port); application live { live on; } } }
        """
        FileManager.default.createFile(atPath: root + "/nginx.conf", contents: Data(config.utf8))
        let nginx = try start("nginx", ["-p", root, "-c", root + "/nginx.conf"], name: "nginx-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("nginx did not start: \(nginx.output)")
        }
        return port
    }

    /// A live publisher as encoders send: `ffmpeg -re` looping samples/beach.mp4 (H.264 with a
    /// 1 s GOP, AAC sound) into `output`, with the tracks `tracks` keeps. `reencode` encodes as
    /// OBS and the report did (`-c:v libx264 -g 30 -c:a aac`), at a size that keeps two
    /// cores free for the test.
    public func publish(_ tracks: PublishedTracks, to output: String, format: String, reencode: Bool = false,
                 extra: [String] = []) throws -> ServerProcess {
        let codecs = reencode
            ? ["-vf", "scale=360:640", "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-c:a", "aac"]
            : ["-c", "copy"]
        return try start("ffmpeg", ["-v", "error", "-re", "-stream_loop", "-1", "-i", Fixture.sample("beach.mp4")]
                         + codecs + tracks.arguments + extra + ["-f", format, output],
                         name: "publish-\(format)-\(UUID().uuidString.prefix(8))")
    }

    /// `ffmpeg -re` looping a sample into `output` (RTMP, SRT or an HLS playlist).
    public func feed(_ sample: String, to output: String, format: String, extra: [String] = []) throws -> ServerProcess {
        try start("ffmpeg", ["-v", "error", "-re", "-stream_loop", "-1", "-i", Fixture.sample(sample), "-c", "copy", "-an"]
                  + extra + ["-f", format, output], name: "ffmpeg-\(format)-\(UUID().uuidString.prefix(8))")
    }

    /// The processes started and not yet stopped by `stopAll`.
    public var running: [ServerProcess] { processes.withLock { $0 } }

    public func stopAll() {
        let running = processes.withLock { processes in
            defer { processes.removeAll() }
            return processes
        }
        for process in running.reversed() { process.stop() }
    }

    deinit { stopAll() }
}

/// A test case with real servers of its own: `servers` is new for each test (ffmpeg and python3
/// are required) and every process it started is stopped after it.
open class LiveServerTestCase: XCTestCase {
    public var servers: ServerSet!

    open override func setUpWithError() throws {
        try LiveServers.require("ffmpeg", "python3")
        servers = ServerSet()
    }

    open override func tearDown() {
        servers?.stopAll()
        servers = nil
    }
}
