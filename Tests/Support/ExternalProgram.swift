import Foundation

/// Runs a program to the end and collects what it printed: the CLI under test, and the
/// independent tools tests compare with (ImageMagick, exiftool).
public enum ExternalProgram {
    public struct Outcome {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    /// A program that exited with a failure, with what it said.
    public struct Failed: Error, CustomStringConvertible {
        public let message: String
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    /// Runs `program` with `arguments` (in `folder`, when given) and waits for it.
    public static func outcome(_ program: String, _ arguments: [String], in folder: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let out = Pipe()
        process.standardOutput = out
        // Standard error goes to a file, not a second pipe: while standard output is read to its
        // end, a program that writes more than a pipe holds (64 KB) to stderr (the dynamic
        // loader's LD_DEBUG log, a long FFmpeg error) would block, and both sides would wait.
        let errorPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("external-stderr-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: errorPath, contents: nil),
              let err = FileHandle(forWritingAtPath: errorPath) else {
            throw Failed(message: "cannot create \(errorPath) for \(program)'s standard error")
        }
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        process.standardError = err
        try process.run()
        try? err.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = FileManager.default.contents(atPath: errorPath) ?? Data()
        return Outcome(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Runs `program` and gives its standard output; an exit status other than 0 throws `Failed`.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String]) throws -> Data {
        let outcome = try outcome(program, arguments)
        guard outcome.status == 0 else {
            throw Failed(message: "\(program) \(arguments.joined(separator: " ")): \(String(decoding: outcome.stderr, as: UTF8.self))")
        }
        return outcome.stdout
    }
}
