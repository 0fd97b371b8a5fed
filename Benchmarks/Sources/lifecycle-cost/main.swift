import Compositor
import Foundation
import StoryPlayer

// Plays and stops one story N times (default 1000), as a viewer swiping back and forth would,
// and prints the mean and p95 time from play() to the first decoded frame, and the resident
// memory after a warm-up and at the end: a leak in the create-on-play / drop-on-stop cycle shows
// as growth.
//   lifecycle-cost FILE [cycles] [WxH]

// render-stories maps every allocation of 128 KiB or more on its own (its ProcessMemory, a
// policy of the command line, not of the libraries this links). bench/memory.sh runs this with
// the same policy through glibc's tunables, so the figures are the tool's.

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: lifecycle-cost FILE [cycles] [WxH]\n".utf8))
    exit(2)
}
let file = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path
let cycles = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let size = (arguments.count > 3 ? arguments[3] : "720x1280").split(separator: "x").compactMap { Int($0) }
let canvas = Canvas(width: size[0], height: size[1])
let story = Story(id: "s", items: [StoryItem(source: MediaSource(uri: file, relativeTo: "/"))])

/// Resident set size in MB, from /proc/self/statm.
func residentMB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = Double(text.split(separator: " ")[1]) ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func cycle(_ index: Int) -> Double {
    // A fresh trace each cycle, so the trace's own growth is not counted as the players'.
    let player = StoryPlaybackController(story: story, canvas: canvas, trace: LifecycleTrace())
    let start = ContinuousClock.now
    let item = player.play(item: 0, at: 0)
    guard item?.picture(at: 0) != nil else {
        FileHandle.standardError.write(Data("no picture from \(file)\n".utf8))
        exit(1)
    }
    let elapsed = ContinuousClock.now - start
    player.stop(at: 0.1)
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

let warmUp = 50
for i in 0..<warmUp { _ = cycle(i) }
let before = residentMB()
var times: [Double] = []
for i in 0..<cycles { times.append(cycle(i)) }
let after = residentMB()
times.sort()
let mean = times.reduce(0, +) / Double(times.count)
print(String(format: "%d play/stop cycles of %@ at %dx%d", cycles, (file as NSString).lastPathComponent, canvas.width, canvas.height))
print(String(format: "  play -> firstFrame: mean %.2f ms, p50 %.2f ms, p95 %.2f ms", mean, times[times.count / 2], times[times.count * 95 / 100]))
print(String(format: "  RSS after %d warm-up cycles %.1f MB, after %d more %.1f MB, growth %.1f MB", warmUp, before, cycles, after, after - before))
