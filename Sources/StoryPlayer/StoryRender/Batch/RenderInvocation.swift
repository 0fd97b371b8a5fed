import Foundation
import StoryEncode
import StoryMedia

/// One `render-stories render` run as a process of its own (a batch's row, the studio's Render
/// button): its arguments, and what its exit status means (`Exit`). Whoever starts a render
/// builds its arguments here, so the options that name a file it writes, and which exits mean
/// "rendered", are known in one place.
public struct RenderInvocation: Sendable, Equatable {
    /// The storyboard's path.
    public var storyboard: String
    /// The render's folder (`--output`).
    public var output: String
    /// render's options before the parameters' values.
    public var options: [String]
    /// The storyboard's parameters' values, passed as `--set name=value` in the names' order.
    public var values: [String: String]
    /// render's options after the values: the studio's page shows its clip and look last.
    public var closingOptions: [String]

    public init(storyboard: String, output: String, options: [String] = [], values: [String: String] = [:],
                closingOptions: [String] = []) {
        self.storyboard = storyboard
        self.output = output
        self.options = options
        self.values = values
        self.closingOptions = closingOptions
    }

    /// The arguments after the program's path: `render BOARD --output DIR …`.
    public var arguments: [String] {
        let sets = values.keys.sorted().flatMap { ["--set", "\($0)=\(values[$0]!)"] }
        return ["render", storyboard, "--output", output] + options + sets + closingOptions
    }

    // MARK: - Options that name a file

    /// render's options that name a file it writes besides its folder (a clip, the contact
    /// sheet, the timeline): a batch's row writes each into its own folder. The clips' come
    /// from `ExportFormat`, so a new format is placed as the others are.
    public static let fileOptions: [String] = {
        var flags: [String] = []
        for flag in ExportFormat.allCases.map(\.flag) where !flags.contains(flag) { flags.append(flag) }
        return flags + ["--contact-sheet", "--timeline"]
    }()

    /// An option's name: `--mp4` of `--mp4=clip.mp4`.
    public static func name(of option: String) -> String {
        option.split(separator: "=", maxSplits: 1).first.map(String.init) ?? option
    }

    /// `options` with the file each of `fileOptions` names put into `folder` (`--mp4 clip.mp4`
    /// and `--mp4=clip.mp4` both become `--mp4 FOLDER/clip.mp4`), and those files' paths.
    public static func placingFiles(of options: [String], in folder: String) -> (options: [String], files: [String]) {
        var placed: [String] = []
        var files: [String] = []
        var index = 0
        while index < options.count {
            let option = options[index]
            let name = name(of: option)
            let inline = option.contains("=")
            guard fileOptions.contains(name), inline || index + 1 < options.count else {
                placed.append(option)
                index += 1
                continue
            }
            let value = inline ? String(option.split(separator: "=", maxSplits: 1)[1]) : options[index + 1]
            let path = (folder as NSString).appendingPathComponent(value)
            placed += [name, path]
            files.append(path)
            index += inline ? 1 : 2
        }
        return (placed, files)
    }
}
