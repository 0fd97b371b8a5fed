import Compositor
import Foundation
import StoryMedia
import StoryBase
import StoryModel

/// One side of a comparison: a render's folder (its `frame-NNNNNN.png` files, and what each
/// showed when it has `frames.jsonl`) or a clip (any video file FFmpeg reads). Without records,
/// read twice: once for every frame's fingerprint, then for the frames that must be measured.
final class ComparedRender {
    enum Kind: String, Codable { case frames, clip }

    let path: String
    let kind: Kind
    /// The folder's frame files in order, with the numbers in their names (a shard's start
    /// past 0; a missing one leaves a gap); empty for a clip.
    private let frameFiles: [(number: Int, path: String)]
    /// The size of the first frame, once the fingerprints are read.
    private(set) var firstSize: (width: Int, height: Int)?
    /// A clip's decoder, and the number of the picture it gives next.
    private var clip: PictureSequence?
    private var clipPosition = 0

    /// A folder's trace (`lifecycle.jsonl`) and its frames a second (`summary.json`'s
    /// `timeline_fps`), when it has them.
    private(set) var trace: [TraceComparison.Event]?
    private(set) var fps: Double?
    /// What each frame showed (`frames.jsonl`), by frame number, when the folder has it.
    let records: [Int: FrameRecord]?

    /// Frames decoded side by side (a folder's), and held at once.
    static let batch = 8

    /// Opens `path`: a folder with at least one frame file, or a file a decoder opens.
    init(_ path: String) throws(CompareError) {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CompareError(.input, "\(path): no such file or folder")
        }
        if isFolder.boolValue {
            kind = .frames
            frameFiles = StoryRenderer.frameFileNames(in: path).sorted { $0.index < $1.index }
                .map { ($0.index, (path as NSString).appendingPathComponent($0.name)) }
            guard !frameFiles.isEmpty else {
                throw CompareError(.input, "\(path) holds no frame-NNNNNN.png files: not a render's folder")
            }
            records = FrameRecord.read(inFolder: path)
            trace = TraceComparison.events(inTrace: (path as NSString).appendingPathComponent("lifecycle.jsonl"))
            fps = Self.timelineFPS(summary: (path as NSString).appendingPathComponent("summary.json"))
        } else {
            kind = .clip
            frameFiles = []
            records = nil
            try openClip()
        }
    }

    /// `timeline_fps` of a render's summary.
    private static func timelineFPS(summary path: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path), case .object(let fields)? = try? JSONValue.parse(data),
              case .number(let fps)? = fields["timeline_fps"], fps > 0 else { return nil }
        return fps
    }

    /// The number frame `position` has: its file's for a folder, its place for a clip.
    func number(at position: Int) -> Int { kind == .frames ? frameFiles[position].number : position }

    /// Every frame's key by what it showed (`FrameRecord`), in order; nil unless every frame
    /// file has its record. Sets `firstSize` from the first file's header.
    func traceKeys() -> [UInt64]? {
        guard let records else { return nil }
        var keys: [UInt64] = []
        keys.reserveCapacity(frameFiles.count)
        for file in frameFiles {
            guard let record = records[file.number] else { return nil }
            keys.append(FrameKey.of(record))
        }
        if firstSize == nil, let first = frameFiles.first, let size = ShardMerge.pngSize(first.path) { firstSize = size }
        return keys
    }

    /// Frame `position`'s record (a folder's, when it has them).
    func record(at position: Int) -> FrameRecord? {
        kind == .frames ? records?[frameFiles[position].number] : nil
    }

    /// The bytes of frame file `position` (a folder's).
    func fileBytes(at position: Int) throws(CompareError) -> [UInt8] {
        do throws(FileError) {
            return try AtomicFile.read(frameFiles[position].path)
        } catch {
            throw CompareError(.input, "\(frameFiles[position].path): cannot read the frame", cause: error)
        }
    }

    /// Every frame's fingerprint (`RGBAImage.fingerprint`), in order. A clip with no picture
    /// is not something to compare.
    func fingerprints() throws(CompareError) -> [UInt64] {
        switch kind {
        case .frames:
            var prints: [UInt64] = []
            for start in stride(from: 0, to: frameFiles.count, by: Self.batch) {
                let end = min(start + Self.batch, frameFiles.count)
                let read = try decodeSideBySide(Array(start..<end)) { ($0.fingerprint, $0.width, $0.height) }
                if firstSize == nil, let first = read.first { firstSize = (first.1, first.2) }
                prints += read.map(\.0)
            }
            return prints
        case .clip:
            if clipPosition > 0 { try openClip() }
            var prints: [UInt64] = []
            while let image = try nextClipPicture() {
                if firstSize == nil { firstSize = (image.width, image.height) }
                prints.append(image.fingerprint)
            }
            guard !prints.isEmpty else { throw CompareError(.input, "\(path) holds no picture: nothing to compare") }
            return prints
        }
    }

    /// A frame to measure as read: a folder's file, decoded when it must be; a clip's picture.
    enum LoadedFrame: Sendable {
        case file([UInt8], path: String)
        case picture(RGBAImage)

        /// The frame's picture (a file's decoded: `RGBAImage(pngData:)`).
        func picture() throws(CompareError) -> RGBAImage {
            switch self {
            case .picture(let image):
                return image
            case .file(let bytes, let path):
                do { return try RGBAImage(pngData: bytes) } catch {
                    throw CompareError(.input, "\(path): cannot read the frame", cause: error)
                }
            }
        }
    }

    /// Frames `indices` (ascending) to measure: a folder's as its files' bytes, a clip's decoded.
    func load(_ indices: [Int]) throws(CompareError) -> [LoadedFrame] {
        switch kind {
        case .frames:
            var loaded: [LoadedFrame] = []
            for index in indices { loaded.append(.file(try fileBytes(at: index), path: frameFiles[index].path)) }
            return loaded
        case .clip:
            return try frames(at: indices).map { .picture($0) }
        }
    }

    /// Frames `indices` (ascending, each one there is).
    func frames(at indices: [Int]) throws(CompareError) -> [RGBAImage] {
        switch kind {
        case .frames:
            return try decodeSideBySide(indices) { $0 }
        case .clip:
            if let first = indices.first, first < clipPosition { try openClip() }
            var images: [RGBAImage] = []
            for index in indices {
                while clipPosition < index { try skipClipPicture() }
                guard let image = try nextClipPicture() else {
                    throw CompareError(.input, "\(path): picture \(index) is no longer there")
                }
                images.append(image)
            }
            return images
        }
    }

    /// The frame files `indices` decoded side by side, each made into what `keep` keeps of it.
    private func decodeSideBySide<T: Sendable>(_ indices: [Int], _ keep: @Sendable (RGBAImage) -> T) throws(CompareError) -> [T] {
        let paths = indices.map { frameFiles[$0].path }
        let results = SideBySide.map(paths.count) { i in
            Result { () throws(CompositorError) in keep(try RGBAImage(contentsOfPNG: paths[i])) }
        }
        var values: [T] = []
        for (path, result) in zip(paths, results) {
            switch result {
            case .success(let value): values.append(value)
            case .failure(let error): throw CompareError(.input, "\(path): cannot read the frame", cause: error)
            }
        }
        return values
    }

    private func openClip() throws(CompareError) {
        clip?.close()
        clipPosition = 0
        do {
            clip = try PictureSequence(path: path)
        } catch {
            throw CompareError(.input, "\(path): cannot read it as a video", cause: error)
        }
    }

    private func nextClipPicture() throws(CompareError) -> RGBAImage? {
        do {
            guard let picture = try clip?.next() else { return nil }
            clipPosition += 1
            return picture.image
        } catch {
            throw CompareError(.input, "\(path): cannot decode picture \(clipPosition)", cause: error)
        }
    }

    private func skipClipPicture() throws(CompareError) {
        do {
            guard try clip?.skip() == true else { throw CompareError(.input, "\(path): ended at picture \(clipPosition)") }
            clipPosition += 1
        } catch let error as CompareError {
            throw error
        } catch {
            throw CompareError(.input, "\(path): cannot decode picture \(clipPosition)", cause: error)
        }
    }
}
