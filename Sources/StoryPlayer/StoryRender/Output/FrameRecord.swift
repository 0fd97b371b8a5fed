import Foundation
import StoryBase

/// What one frame showed, by the trace's names: a line of `frames.jsonl`.
///
/// `compare` pairs two renders' frames by these (the same page offset, the same stories and
/// items on the faces, the same pictures of their media), so a render that gained or lost a
/// frame is aligned by what its frames are, not by how they look; and `--face` measures each
/// cube face inside its `quad`.
public struct FrameRecord: Codable, Sendable, Equatable {
    /// A story's face on the frame.
    public struct Face: Codable, Sendable, Equatable {
        /// The story's id, and the item it shows (from 0).
        public var story: String
        public var item: Int
        /// What the face shows: `picture` (a picture of the item's media), `loading` (its player
        /// has no picture yet: the poster and spinner), `poster` (no player: before play or
        /// behind a settle) or `error` (its play failed: the error card).
        public var shows: String
        /// The presentation time of the picture shown, media seconds; only with `picture`.
        public var mediaTime: Double?
        /// The progress bar's fill, 0…1, when the overlay is drawn.
        public var bar: Double?
        /// Where the face's corners land on the frame, clockwise from its top left, in pixels
        /// (scaled with the frame while the viewer opens or closes; its round mask aside).
        public var quad: [[Double]]

        enum CodingKeys: String, CodingKey {
            case story, item, shows, quad, bar
            case mediaTime = "media_t"
        }
    }

    public var frame: Int
    /// Timeline seconds.
    public var t: Double
    /// The scroll position in pages (0.5: halfway from the first story to the second).
    public var page: Double
    /// How far the viewer is open, 0…1 (it opens and closes as a bubble from the tray).
    public var open: Double
    /// The faces in page order; none once the viewer has closed.
    public var faces: [Face]

    /// The record's line of `frames.jsonl` (keys sorted, no newline).
    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The encoder cannot fail on these fields (finite numbers, strings, arrays).
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The file's name in a render's folder.
    public static let fileName = "frames.jsonl"

    /// The records of `frames.jsonl` in `folder`, by frame number; nil when the file is missing
    /// or a line of it cannot be read (an older render, or one cut short).
    public static func read(inFolder folder: String) -> [Int: FrameRecord]? {
        guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(fileName)) else {
            return nil
        }
        var records: [Int: FrameRecord] = [:]
        let decoder = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let record = try? decoder.decode(FrameRecord.self, from: Data(line)) else { return nil }
            records[record.frame] = record
        }
        return records
    }

    /// `records` as the file's text, in frame order.
    static func lines(_ records: [FrameRecord]) -> String {
        records.sorted { $0.frame < $1.frame }.map { $0.jsonLine + "\n" }.joined()
    }
}

/// `frames.jsonl`: a `FrameRecord` for every drawn frame, written whole with the trace.
struct FrameRecordFile: FrameSink {
    private(set) var records: [FrameRecord] = []

    private var fps = 30.0

    mutating func take(_ frame: DrawnFrame) throws(RenderError) {
        if let record = frame.record { records.append(record) }
        fps = frame.fps
    }

    /// A realtime render's frames too late to draw are the frame before them again (`PNGFrames`
    /// writes its file for each): so is their record, at their own number and time.
    mutating func endFrames(_ ending: FramesEnding) throws(RenderError) {
        var byFrame = Dictionary(records.map { ($0.frame, $0) }, uniquingKeysWith: { first, _ in first })
        for late in ending.lateFrames.sorted() where late > 0 && byFrame[late] == nil {
            guard var shown = byFrame[late - 1] else { continue }
            shown.frame = late
            shown.t = Double(late) / fps
            byFrame[late] = shown
            records.append(shown)
        }
    }

    func write(_ ending: RenderEnding) throws(RenderError) {
        let path = (ending.folder as NSString).appendingPathComponent(FrameRecord.fileName)
        do {
            try AtomicFile.write(Array(FrameRecord.lines(records).utf8), to: path)
        } catch {
            throw RenderError(.output, "cannot write \(path)", cause: error)
        }
    }
}
