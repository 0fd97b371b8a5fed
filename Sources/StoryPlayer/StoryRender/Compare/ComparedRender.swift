import Compositor
import Foundation
import StoryMedia
import Synchronization

/// One side of a comparison: a render's folder (its `frame-NNNNNN.png` files, and
/// `lifecycle.jsonl` when it has one) or a clip (any video file FFmpeg reads).
final class ComparedRender {
    enum Kind: String, Codable { case frames, clip }

    let path: String
    let kind: Kind
    /// The folder's frame files in order; empty for a clip.
    private let frameFiles: [String]
    private var clip: PictureSequence?
    /// Frames read so far.
    private(set) var read = 0

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
                .map { (path as NSString).appendingPathComponent($0.name) }
            guard !frameFiles.isEmpty else {
                throw CompareError(.input, "\(path) holds no frame-NNNNNN.png files: not a render's folder")
            }
        } else {
            kind = .clip
            frameFiles = []
            do {
                clip = try PictureSequence(path: path)
            } catch {
                throw CompareError(.input, "\(path): cannot read it as a video", cause: error)
            }
        }
    }

    /// The next `count` frames at most (fewer at the end, none after it), in order: a clip is
    /// read once. A folder's are decoded side by side.
    func nextFrames(_ count: Int) throws(CompareError) -> [RGBAImage] {
        let images = try kind == .frames ? decodeFrameFiles(count) : decodeClipPictures(count)
        read += images.count
        return images
    }

    private func decodeFrameFiles(_ count: Int) throws(CompareError) -> [RGBAImage] {
        let paths = Array(frameFiles.dropFirst(read).prefix(count))
        let decoded = Mutex<[Result<RGBAImage, CompositorError>?]>(Array(repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            let result = Result { () throws(CompositorError) in try RGBAImage(contentsOfPNG: paths[i]) }
            decoded.withLock { $0[i] = result }
        }
        let results = decoded.withLock { $0 }
        var images: [RGBAImage] = []
        for (path, result) in zip(paths, results) {
            switch result! {
            case .success(let image): images.append(image)
            case .failure(let error): throw CompareError(.input, "\(path): cannot read the frame", cause: error)
            }
        }
        return images
    }

    private func decodeClipPictures(_ count: Int) throws(CompareError) -> [RGBAImage] {
        var images: [RGBAImage] = []
        while images.count < count, let clip {
            do {
                guard let picture = try clip.next() else {
                    clip.close()
                    self.clip = nil
                    break
                }
                images.append(picture.image)
            } catch {
                throw CompareError(.input, "\(path): cannot decode picture \(read + images.count)", cause: error)
            }
        }
        return images
    }
}
