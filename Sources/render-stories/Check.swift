import ArgumentParser
import Compositor
import StoryPlayer

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a lifecycle trace: ids never reused, one stop per play, a bounded number alive.",
        discussion: "Prints one line per violation and exits 1 if there is any; exits 0 when every rule holds."
    )

    @Argument(help: "A lifecycle.jsonl written by render.")
    var trace: String

    @Option(parsing: .unconditional, help: "The most players that may be alive at once.")
    var maxAlive = 2

    @Option(parsing: .unconditional, help: "The most audio-only players (a live room's participants, \"media\": \"audio\") that may be alive at once. Default: no bound.")
    var maxAudio: Int?

    @Flag(help: "The trace covers only a frame range: players may be alive at its start and end.")
    var shard = false

    func validate() throws {
        guard maxAlive >= 1 else { throw ValidationError("--max-alive must be at least 1") }
        if let maxAudio, maxAudio < 0 { throw ValidationError("--max-audio must be 0 or more") }
    }

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.read(trace)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains(where: { !$0.isWhitespace }) else {
            print("\(trace): the trace is empty: no render wrote events into it")
            throw ExitCode(1)
        }
        let violations = TraceCheck.check(text, maxAlive: maxAlive, maxAudio: maxAudio,
                                          shard: shard)
        for violation in violations { print(violation) }
        if violations.isEmpty {
            print("ok: lifecycle holds (at most \(maxAlive) alive\(maxAudio.map { ", at most \($0) audio" } ?? ""))")
        } else {
            throw ExitCode(1)
        }
    }
}
