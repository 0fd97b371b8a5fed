import CFuzzerDriver
import Foundation
@testable import StoryPlayback
@testable import StoryTrace

/// One input: any bytes as one line of `lifecycle.jsonl`. Reading must give an event or a
/// `LineError`, never trap. An event that reads must write (`jsonLine`) a line that reads again,
/// to an event that writes the very same line: `merge` reads traces and writes them back, and
/// what the renderer wrote must survive that unchanged. (The first read may round: the trace
/// keeps times to the millisecond, so "wall": 0.0023 writes as 0.002; the fuzzer's first find.)
func fuzzTraceLine(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let line = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    guard let event = try? TraceEvent(jsonLine: line) else { return 0 }
    let written = event.jsonLine
    let again: TraceEvent
    do {
        again = try TraceEvent(jsonLine: written)
    } catch {
        fatalError("a line that reads does not read back once written: \(written): \(error)")
    }
    if again.jsonLine != written {
        fatalError("a written line changed through read and write: \(written) became \(again.jsonLine)")
    }
    return 0
}

@main
enum FuzzTraceLineMain {
    static func main() {
        exit(story_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzTraceLine))
    }
}
