#if STORY_STUDIO
import ArgumentParser
import Foundation
import StoryPlayer
import StoryStudio
import Synchronization

/// `render-stories studio BOARD.json`: the live preview page (issue 31, docs/studio.md). Built
/// only with the StoryStudio target (not in the sanitizer and fuzz builds: Package.swift).
struct Studio: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a live preview page for a storyboard on 127.0.0.1: scrub, play, hot reload, lanes, render.",
        discussion: """
        Prints the page's address with a random token (every request needs it). Saving the \
        storyboard or a local file it names re-renders the frame shown; errors show in the page \
        with their JSON paths. The page's Render button runs the `render` command it shows. \
        A storyboard with "parameters" gets a form of them (a file parameter picks among the \
        files of the storyboard's folder); the preview follows the form, and the Render button \
        renders the variant shown. With --data, a row selector shows each row's variant.
        """
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var parameters: ParameterArguments

    @Option(help: ArgumentHelp("Rows of values (.csv, .json, .jsonl, as batch reads them): the page offers each as a variant to preview and render.", valueName: "file"))
    var data: String?

    @Option(help: ArgumentHelp("Name the rows in the page by this column of --data.", valueName: "column"))
    var nameFrom: String?

    @Option(parsing: .unconditional, help: "The port on 127.0.0.1 (0: one the system chooses).")
    var port = 4747

    @Option(name: .shortAndLong, help: ArgumentHelp("Where the page's Render button writes. Default: out/<storyboard name>.", valueName: "dir"))
    var output: String?

    @Flag(help: "Open the page in the default browser (xdg-open).")
    var open = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (got \(port))") }
        guard FileManager.default.fileExists(atPath: storyboard) else { throw ValidationError("no such file \(storyboard)") }
        if nameFrom != nil && data == nil { throw ValidationError("--name-from names a column of --data; give --data too") }
    }

    /// The root command is synchronous (its `main` maps errors to exit codes), so the server runs
    /// in a task this thread waits for. SIGINT and SIGTERM stop it (`handleSignals`).
    func run() throws {
        let name = ((storyboard as NSString).lastPathComponent as NSString).deletingPathExtension
        let rows = try readRows()
        let server = StudioServer(.init(boardPath: storyboard, port: port, outputFolder: output ?? "out/\(name)",
                                        executable: Studio.executable, parameters: parameters.values, data: rows, nameFrom: nameFrom))
        let signals = Studio.handleSignals(server)
        defer { signals.cancel() }
        let open = self.open, storyboard = self.storyboard
        let finished = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
        Task {
            do {
                try await server.run { url in
                    // Unbuffered: a script (or a test) waits for this line to know the address.
                    FileHandle.standardOutput.write(Data("studio for \(storyboard) at \(url)\n".utf8))
                    if open { Studio.openInBrowser(url) }
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            finished.signal()
        }
        finished.wait()
        if let failure = failure.withLock({ $0 }) {
            printError("error: " + Studio.serveFailure(failure, port: port))
            throw ExitCode(1)
        }
    }

    /// `--data`'s rows, every problem in them said as batch says them (exit 2).
    private func readRows() throws -> BatchData? {
        guard let data else { return nil }
        let rows: BatchData
        do {
            rows = try BatchData(contentsOf: data)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        // A row the data could not give is named, every one, as batch names them.
        if !rows.problems.isEmpty {
            rows.problems.forEach { printError("error: \($0)") }
            throw ExitCode(2)
        }
        if let nameFrom, !rows.columns.contains(nameFrom) {
            printError("error: --name-from \(nameFrom): the data has no such column (it has \(rows.columns.joined(separator: ", ")))")
            throw ExitCode(2)
        }
        return rows
    }

    /// SIGINT or SIGTERM stops the studio (`StudioServer.stop()`): a render its Render button
    /// started stops at its next frame and finishes its clips, as a render's Ctrl-C stops it,
    /// then the studio exits 0. A second signal ends it at once (128 + the signal), its render
    /// stopped at once too, after removing the temporary files still open.
    static func handleSignals(_ server: StudioServer) -> SignalWatch {
        let first = RenderInterruption()
        return SignalWatch { number, count in
            let again = first.requested != nil
            first.request(signal: number)
            server.stop()
            // Two signals close together may reach the handler as one, with a count of two: the
            // render gets its second SIGINT too.
            guard again || count > 1 else { return }
            if !again { server.stop() }
            TemporaryFiles.removeAll()
            _exit(128 + number)
        }
    }

    /// Why the server could not listen, in plain words. The server's error names the system
    /// call with its Swift labels ("bind(descriptor:ptr:bytes:): Address already in use)
    /// (errno: 98)"): the system's reason is kept, the call is not the user's business.
    static func serveFailure(_ description: String, port: Int) -> String {
        guard let match = description.firstMatch(of: /\(errno: (\d+)\)/), let code = Int32(match.1) else {
            return "the studio cannot serve on 127.0.0.1:\(port): \(description)"
        }
        if code == EADDRINUSE {
            return "port \(port) on 127.0.0.1 is in use by another program: give another --port, or --port 0 for one the system chooses"
        }
        return "the studio cannot serve on 127.0.0.1:\(port): \(String(cString: strerror(code)))"
    }

    /// This very executable, which the Render button runs as `render`.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static func openInBrowser(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        try? process.run()
    }
}
#endif
