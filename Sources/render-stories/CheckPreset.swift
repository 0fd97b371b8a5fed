import ArgumentParser
import Foundation
import StoryPlayer

struct CheckPreset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-preset",
        abstract: "Check a video file against a platform's published limits (the presets of render --preset).",
        discussion: """
        Reads FILE with ffprobe (which must be installed) and compares what it says with the limits of \
        the preset: container, codec and profile, size (as shown: a phone's portrait clip stored \
        1920x1080 with a display matrix that turns it upright is 1080x1920, as players and the \
        platforms show it; the stored size is said too), frame rate, pixel format, scan, video bit rate, \
        GOP (shorts: at most half the frame rate), the sound's codec, rate and channels, duration and \
        file size. Prints one line per broken limit, naming it, e.g. \
        "size: 1280x720, reels needs 1080x1920". Exits 0 when every limit holds, 1 when any breaks, \
        2 for usage errors (a file that does not exist), 3 when the file cannot be checked (no \
        ffprobe, or ffprobe cannot read it). Where each figure comes from: docs/outputs.md.

        Example:
          render-stories render board.json --preset reels --mp4 out/reel.mp4 --no-png
          render-stories check-preset out/reel.mp4 --preset reels
        """
    )

    @Argument(help: ArgumentHelp("The video file to check (any, not only ours).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The platform: \(PlatformPreset.names.joined(separator: ", ")).", valueName: "platform"))
    var preset: String

    func validate() throws {
        guard PlatformPreset.named(preset) != nil else {
            throw ValidationError("--preset must be one of \(PlatformPreset.names.joined(separator: ", "))")
        }
        guard FileManager.default.fileExists(atPath: file) else { throw ValidationError("\(file): no such file") }
    }

    func run() throws {
        guard let platform = PlatformPreset.named(preset) else { throw ExitCode(2) }
        let probed: ProbedFile
        do {
            probed = try ProbedFile.probe(file, keyframes: platform.checksGOP)
        } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        let broken = platform.violations(of: probed)
        for violation in broken { print(violation) }
        guard broken.isEmpty else {
            printError("\(file) breaks \(broken.count) limit\(broken.count == 1 ? "" : "s") of \(platform.name)")
            throw ExitCode(1)
        }
        var sizes = ""
        if let video = probed.video, video.isTurnedSideways {
            sizes = " (shown \(video.shownWidth)x\(video.shownHeight), stored \(video.width)x\(video.height) and turned by its display matrix)"
        }
        print("\(file) holds to every limit of \(platform.name)\(sizes)")
    }
}
