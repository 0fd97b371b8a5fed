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
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard output is read to its end before standard error: the tools here print little
        // on stderr, never enough to fill its pipe while stdout is being read.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
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
