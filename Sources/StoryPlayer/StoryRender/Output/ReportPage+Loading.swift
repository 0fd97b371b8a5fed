import Compositor
import Foundation
import StoryBase
import StoryModel

/// Why a report could not be made from a folder: errors as data, for `render-stories report`.
public struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(_ message: String) {
        self.message = message
    }
}

extension ReportPage {
    /// The fps a report assumes when neither the caller nor `summary.json` names one: a
    /// storyboard's default.
    public static let fallbackFPS = 30.0

    /// Reads an output folder as `render` leaves it: `lifecycle.jsonl` (required), `summary.json`
    /// and the frames beside them.
    ///
    /// - Parameters:
    ///   - fps: the timeline's fps; nil takes `timeline_fps` from `summary.json` (renders before it
    ///     was written there fall back to 30, with a notice on the page).
    ///   - clip: the MP4, as a path from the current folder; nil looks for the one `.mp4` in
    ///     `folder`, if there is exactly one.
    public static func load(folder: String, fps: Double? = nil, clip: String? = nil,
                            maxAlive: Int = 2, maxAudio: Int? = nil) throws(ReportError) -> ReportPage {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ReportError("\(folder) is not a folder")
        }
        let tracePath = (folder as NSString).appendingPathComponent("lifecycle.jsonl")
        let trace: String
        do {
            trace = String(decoding: try AtomicFile.read(tracePath), as: UTF8.self)
        } catch {
            throw ReportError("\(folder) holds no readable lifecycle.jsonl (\(error)); is it a render's output folder?")
        }
        let summaryPath = (folder as NSString).appendingPathComponent("summary.json")
        let summary = try? String(decoding: AtomicFile.read(summaryPath), as: UTF8.self)
        var notices: [String] = []
        if summary == nil { notices.append("no summary.json beside the trace") }

        var timelineFPS = fps
        if timelineFPS == nil, let summary, case .object(let fields)? = try? JSONValue.parse(Data(summary.utf8)),
           case .number(let value)? = fields["timeline_fps"], value > 0, value.isFinite {
            timelineFPS = value
        }
        if timelineFPS == nil {
            timelineFPS = fallbackFPS
            notices.append("summary.json does not name the timeline's fps; assumed \(JSONText.number(fallbackFPS)) (give --fps)")
        }

        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let numbers = names.compactMap(frameNumber)
        let frames = numbers.min().map { $0...numbers.max()! }

        var clipURL: String?
        if let clip {
            guard FileManager.default.fileExists(atPath: clip) else { throw ReportError("the clip \(clip) does not exist") }
            clipURL = relativeURL(of: clip, from: folder)
        } else {
            let clips = names.filter { $0.lowercased().hasSuffix(".mp4") && !$0.hasPrefix(".") }
            if clips.count == 1 { clipURL = relativeURL(of: (folder as NSString).appendingPathComponent(clips[0]), from: folder) }
        }
        return ReportPage(trace: trace, summary: summary, fps: timelineFPS!, frames: frames, clip: clipURL,
                          maxAlive: maxAlive, maxAudio: maxAudio, notices: notices)
    }

    /// 42 for `frame-000042.png` (six digits or more, as `%06d` writes them).
    static func frameNumber(_ name: String) -> Int? {
        guard name.hasPrefix("frame-"), name.hasSuffix(".png") else { return nil }
        let digits = name.dropFirst(6).dropLast(4)
        guard digits.count >= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// `file`'s path from `folder` as a relative URL (`../clips/a%20b.mp4`): the page must find
    /// it from file:// and from a server alike, wherever the folder is moved with it.
    public static func relativeURL(of file: String, from folder: String) -> String {
        func components(_ path: String) -> [String] {
            let absolute = path.hasPrefix("/") ? path
                : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
            // Resolves `.`, `..` and symbolic links, so the two paths are compared alike.
            return URL(fileURLWithPath: absolute).resolvingSymlinksInPath().standardizedFileURL.pathComponents
                .filter { $0 != "/" }
        }
        let target = components(file), base = components(folder)
        var common = 0
        while common < target.count, common < base.count, target[common] == base[common] { common += 1 }
        let steps = Array(repeating: "..", count: base.count - common) + target[common...]
        // Percent-encode each part: a `#` or `?` in a name would otherwise end the path.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;")
        return steps.map { $0 == ".." ? $0 : ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0) }
            .joined(separator: "/")
    }
}
