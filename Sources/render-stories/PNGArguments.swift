import ArgumentParser
import Foundation
import Compositor

/// How frames are written as PNG files, the same for `render` and `still`.
struct PNGArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("PNG compression level, 0 (stored) to 9. Like zlib, the rle and huffman strategies code alike at 1-9.", valueName: "0-9"))
    var pngLevel = 1

    @Option(help: "PNG row filter.")
    var pngFilter: PNGFilter = .up

    @Option(help: "PNG data strategy: default (LZ77 matching; the level sets the effort), rle (runs of one byte only; fastest), huffman (no matching).")
    var pngStrategy: PNGStrategy = .rle

    @Flag(help: "Write RGBA PNGs instead of RGB: where the background is transparent (--background transparent or \"#RRGGBBAA\"), so is the frame. Without it such a frame is flattened over black.")
    var alpha = false

    func validate() throws {
        guard (0...9).contains(pngLevel) else { throw ValidationError("--png-level must be 0 to 9, not \(pngLevel)") }
    }

    var options: PNGOptions {
        PNGOptions(level: pngLevel, filter: pngFilter, strategy: pngStrategy, keepAlpha: alpha)
    }
}

/// `--background COLOUR`, the same for `render` and `still`.
struct BackgroundArguments: ParsableArguments {
    @Option(help: ArgumentHelp("The colour around the stories, overriding the storyboard's canvas.background: \(RGBAColor.spokenForms).", valueName: "colour"))
    var background: BackgroundColor?

    func validate() throws {
        if let problem = background?.problem { throw ValidationError(problem) }
    }

    /// The colour given, or nil to keep the storyboard's.
    var color: RGBAColor? { background?.color }
}

/// A `--background` value, overriding the storyboard's `canvas.background`. Any text parses, so
/// that `validate()` can say what a colour looks like instead of "invalid value".
struct BackgroundColor: ExpressibleByArgument {
    var color: RGBAColor?
    var text: String

    init?(argument: String) {
        text = argument
        color = RGBAColor(parsing: argument)
    }

    /// Why the text is not a colour, or nil.
    var problem: String? {
        color == nil ? "--background \(text): expected a colour (\(RGBAColor.spokenForms))" : nil
    }

    static var defaultValueDescription: String { "colour" }
}

/// A picture output must be named `.png`: a `.jpg` name would hold PNG bytes under a name that
/// says otherwise (the clips' flags refuse a wrong extension the same way).
func requirePNGName(_ flag: String, _ path: String) throws {
    guard (path as NSString).pathExtension.lowercased() == "png" else {
        throw ValidationError("\(flag) \(path): the picture is a PNG file; give its name the .png extension")
    }
}
