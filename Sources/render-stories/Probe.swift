import ArgumentParser
import StoryPlayer

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a source, decode its first frame, and say what it is and how long that took.",
        discussion: """
        Prints what the source shows (video, picture or sound), the codec, the size as shown (after \
        rotation and aspect ratio), the orientation (as EXIF numbers it, 1-8: a photo's Orientation \
        tag, or a video's display matrix), the frame rate, whether the source is live (it has no duration), \
        its duration, three spans from the start: open (demuxer ready), first packet, first frame; \
        and every stream (video: codec, size, rate; audio: codec, channels, sample rate). A live \
        publisher may send sound before its first picture, so the picture is awaited for the open \
        timeout; sound with no picture by then is reported as sound. Exits 1 with FFmpeg's error \
        when the source fails (with --json, as an object: {"source", "error", "code"}).
        """
    )

    @Argument(help: "A file path or any URL FFmpeg opens (http, hls, rtmp, srt, …).")
    var uri: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait for the source to open (\(Timeouts.allowed.spoken)).", valueName: "seconds"))
    var openTimeout: Double = Timeouts().open

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait for data once open (\(Timeouts.allowed.spoken)).", valueName: "seconds"))
    var readTimeout: Double = Timeouts().read

    func validate() throws {
        // An empty argument would resolve to the current folder ("Is a directory").
        guard !uri.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("give a file or URL to probe") }
        guard Timeouts.allowed.contains(openTimeout), Timeouts.allowed.contains(readTimeout) else {
            throw ValidationError("--open-timeout and --read-timeout must be \(Timeouts.allowed.spoken) seconds")
        }
    }

    func run() throws {
        do {
            let report = try MediaProbe.run(uri, timeouts: Timeouts(open: openTimeout, read: readTimeout))
            print(json ? report.json : report.text)
        } catch {
            if json {
                print(MediaProbe.errorJSON(source: uri, error))
            } else {
                printError("error: \(error)")
            }
            throw ExitCode(1)
        }
    }
}
