import Foundation
import Glibc
import StoryTestSupport
import XCTest

/// What the studio tests share: the built executable, a studio server as a user starts it, a
/// headless browser on its page, and raw HTTP requests (the security tests send what no
/// well-behaved client would: a wrong Host, `..` left in the path).
enum StudioHarness {
    static let packageRoot = Fixture.packageRoot


    /// Under CI a missing tool fails the test: a CI run that skipped the studio's tests would
    /// pass with them broken. Elsewhere it is a skip, with how to get the tool.
    static func require(_ condition: Bool, _ what: String) throws {
        guard !condition else { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            XCTFail("\(what) (CI=true: this fails instead of skipping)")
            throw StudioTestFailure(what)
        }
        throw XCTSkip(what)
    }

    /// The browser tests' headless Chromium, installed by `scripts/install-deps.sh --test`.
    static func requireChromium() throws {
        try require(FileManager.default.isExecutableFile(atPath: StudioBrowser.chromium),
                    "chromium is not installed (scripts/install-deps.sh --test installs it)")
    }

    /// The demo at a small size, with its media beside it (the storyboard's folder is served).
    /// `copies`: the media as files of their own (a test that replaces one must not find it
    /// behind a link, which the storyboard resolves to its target).
    static func writeDemo(into folder: String, width: Int = 180, height: Int = 320, copies: Bool = false) throws -> String {
        var text = try String(contentsOfFile: packageRoot.appendingPathComponent("samples/demo.json").path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"width\": 720, \"height\": 1280", with: "\"width\": \(width), \"height\": \(height)")
        let samples = packageRoot.appendingPathComponent("samples").path
        for name in try FileManager.default.contentsOfDirectory(atPath: samples) where !name.hasSuffix(".json") {
            if copies {
                try FileManager.default.copyItem(atPath: samples + "/" + name, toPath: folder + "/" + name)
            } else {
                try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: samples + "/" + name)
            }
        }
        let board = folder + "/demo.json"
        try text.write(toFile: board, atomically: true, encoding: .utf8)
        return board
    }

    /// Runs render-stories and returns its exit status and stderr.
    @discardableResult
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let outcome = try ExternalProgram.outcome(TestPrograms.renderStories, arguments, in: packageRoot.path)
        return (outcome.status, String(decoding: outcome.stderr, as: UTF8.self))
    }
}

extension StudioHarness {
    /// `render-stories studio` on `board` and a headless browser on its page: the servers a
    /// browser test needs, so a failure to start either fails the test (and a studio whose
    /// browser did not start is stopped again).
    static func open(board: String, output: String, extra: [String] = []) throws -> (StudioProcess, StudioBrowser) {
        do {
            let studio = try StudioProcess(board: board, output: output, extra: extra)
            do {
                return (studio, try StudioBrowser(url: studio.url))
            } catch {
                studio.stop()
                throw error
            }
        } catch {
            XCTFail("\(error)")
            throw error
        }
    }
}

struct StudioTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The server

/// `render-stories studio BOARD --port 0`, as a user runs it; stopped (SIGINT, by its pid) by `stop`.
final class StudioProcess {
    let process = Process()
    let url: String
    let port: Int
    let token: String
    private var errors = Pipe()

    init(board: String, output: String, extra: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["studio", board, "--port", "0", "--output", output] + extra
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        // The first line says where: "studio for BOARD at http://127.0.0.1:PORT/?token=T".
        let reader = out.fileHandleForReading
        var line = Data()
        let deadline = Date().addingTimeInterval(120)
        var fds = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
        while !line.contains(UInt8(ascii: "\n")), Date() < deadline {
            guard poll(&fds, 1, 500) > 0 else { if !process.isRunning { break } else { continue } }
            var byte: UInt8 = 0
            guard read(reader.fileDescriptor, &byte, 1) == 1 else { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let at = text.range(of: " at http://") else {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StudioTestFailure("the studio did not start: \(text) \(stderr)")
        }
        url = String(text[text.index(at.lowerBound, offsetBy: 4)...]).trimmingCharacters(in: .whitespacesAndNewlines)
        let components = URLComponents(string: url)!
        port = components.port!
        token = components.queryItems!.first { $0.name == "token" }!.value!
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }

    deinit { stop() }
}

// MARK: - Raw HTTP

/// One HTTP/1.1 request as written, over a plain socket, and the status line's code.
struct RawHTTP {
    let address: String
    let port: Int

    struct Reply {
        let status: Int
        let head: String
        let body: Data
    }

    /// Throws when the connection is refused (nothing listens at that address).
    func get(_ target: String, host: String? = nil, headers: [String] = []) throws -> Reply {
        try request("GET", target, host: host, headers: headers)
    }

    /// A request of any method, with `body` (its length said in Content-Length when not empty).
    func request(_ method: String, _ target: String, host: String? = nil, headers: [String] = [],
                 body: Data = Data()) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StudioTestFailure("socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, address, &addr.sin_addr)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw StudioTestFailure("cannot connect to \(address):\(port): errno \(errno)") }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for header in headers + (body.isEmpty ? [] : ["Content-Length: \(body.count)"]) { request += header + "\r\n" }
        request += "\r\n"
        let bytes = Data(request.utf8) + body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
            // A switched protocol (WebSocket) never closes: its head is the answer.
            if data.starts(with: Data("HTTP/1.1 101".utf8)), data.range(of: Data("\r\n\r\n".utf8)) != nil { break }
        }
        let separator = data.range(of: Data("\r\n\r\n".utf8))
        let head = String(decoding: data[..<(separator?.lowerBound ?? data.endIndex)], as: UTF8.self)
        let body = separator.map { data[$0.upperBound...] } ?? Data()
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? -1
        return Reply(status: status, head: head, body: Data(body))
    }
}

// MARK: - The browser

/// Tests/Support/Python/studio_browser.py on the studio's page: one command, one answer.
final class StudioBrowser {
    static let chromium = "/usr/bin/chromium"
    static let driver = StudioHarness.packageRoot.appendingPathComponent("Tests/Support/Python/studio_browser.py").path
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private var pending = Data()

    /// `temporaryDirectory`, when given, is where the driver's Chromium profile goes (TMPDIR).
    init(url: String, temporaryDirectory: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", StudioBrowser.driver, url]
        if let temporaryDirectory {
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporaryDirectory
            process.environment = environment
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let ready = try nextAnswer()
        guard ready["ready"] as? Bool == true else { throw StudioTestFailure("the browser did not open the page: \(ready)") }
    }

    private func nextAnswer() throws -> [String: Any] {
        while !pending.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw StudioTestFailure("the browser driver ended: \(stderr)")
            }
            pending.append(chunk)
        }
        let end = pending.firstIndex(of: UInt8(ascii: "\n"))!
        let line = pending[pending.startIndex..<end]
        pending = Data(pending[pending.index(after: end)...])
        let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any] ?? [:]
        if let fatal = answer["fatal"] { throw StudioTestFailure("browser: \(fatal)") }
        return answer
    }

    @discardableResult
    func command(_ command: [String: Any]) throws -> [String: Any] {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(UInt8(ascii: "\n"))
        input.fileHandleForWriting.write(line)
        return try nextAnswer()
    }

    func js(_ expression: String, await awaiting: Bool = false) throws -> Any? {
        try command(["op": "js", "expr": expression, "await": awaiting])["value"]
    }

    /// Waits until `expression` is truthy; returns the seconds it took, or nil at the timeout.
    func wait(_ expression: String, timeout: Double = 10) throws -> Double? {
        let answer = try command(["op": "wait", "expr": expression, "timeout": timeout])
        guard let value = answer["value"], !(value is NSNull), (value as? Bool) != false else { return nil }
        return answer["seconds"] as? Double
    }

    func key(_ key: String, code: String, keyCode: Int, shift: Bool = false, text: String? = nil) throws {
        var command: [String: Any] = ["op": "key", "key": key, "code": code, "keyCode": keyCode, "shift": shift]
        if let text { command["text"] = text }
        try self.command(command)
    }

    func consoleErrors() throws -> [String] { try command(["op": "errors"])["value"] as? [String] ?? [] }

    /// The PNG the page shows now.
    func shownPNG() throws -> Data {
        let base64 = try XCTUnwrap(js("window.shownFramePNG()", await: true) as? String)
        return try XCTUnwrap(Data(base64Encoded: base64))
    }

    func close() {
        if process.isRunning {
            _ = try? command(["op": "quit"])
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    deinit { close() }
}
