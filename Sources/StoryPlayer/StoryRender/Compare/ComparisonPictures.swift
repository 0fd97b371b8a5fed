import Compositor
import Foundation
import StoryMedia
import Synchronization

/// The pictures `compare.html` shows beside the frames, written while the pairs are measured
/// (so nothing is decoded twice): each changed pair's difference picture
/// (`PictureDifference.picture`), and the frames of a side that is a clip, whose pictures are
/// on no disk. A folder's frames are shown from where they are. At most `limit` pairs, the
/// first ones met: a render that changed everywhere would otherwise write a picture a frame.
final class ComparisonPictures: Sendable {
    let folder: String
    let limit: Int
    let writesA: Bool
    let writesB: Bool
    private let state = Mutex<Written>(Written())

    /// What was written, as the page refers to it.
    struct Written: Sendable {
        /// "NNNNNN-NNNNNN": the pair's frame numbers in A and B.
        var differences: [String] = []
        var framesA: [Int] = []
        var framesB: [Int] = []
        var failure: CompareError?
    }

    init(folder: String, limit: Int = 200, writesA: Bool, writesB: Bool) {
        self.folder = folder
        self.limit = limit
        self.writesA = writesA
        self.writesB = writesB
    }

    var written: Written { state.withLock { $0 } }

    static func differenceName(a: Int, b: Int) -> String { String(format: "%06d-%06d", a, b) }

    /// Writes the pictures of the changed pair (frame `a` of A, `b` of B), unless `limit` pairs
    /// have been; a failure is kept for the caller (`written.failure`).
    func take(_ imageA: RGBAImage, _ imageB: RGBAImage, a: Int, b: Int) {
        let admitted = state.withLock { written in
            guard written.differences.count < limit else { return false }
            written.differences.append(Self.differenceName(a: a, b: b))
            return true
        }
        guard admitted else { return }
        do {
            try PictureDifference.picture(imageA, imageB).writePNG(to: path("diff", Self.differenceName(a: a, b: b)))
            if writesA { try imageA.writePNG(to: path("frames", String(format: "a-%06d", a))) }
            if writesB { try imageB.writePNG(to: path("frames", String(format: "b-%06d", b))) }
            state.withLock { written in
                if writesA { written.framesA.append(a) }
                if writesB { written.framesB.append(b) }
            }
        } catch {
            state.withLock { $0.failure = $0.failure ?? CompareError(.output, "cannot write the page's pictures in \(folder)", cause: error) }
        }
    }

    /// Retires an earlier comparison in the folder, then makes the folders the pictures go in.
    func prepare() throws(CompareError) {
        try retireEarlierComparison()
        for name in ["diff"] + (writesA || writesB ? ["frames"] : []) {
            do {
                try FileManager.default.createDirectory(atPath: (folder as NSString).appendingPathComponent(name),
                                                        withIntermediateDirectories: true)
            } catch {
                throw CompareError(.output, "cannot make \(folder)/\(name)", cause: ErrorText("\(error)"))
            }
        }
    }

    /// A comparison into a folder that holds an earlier one would leave that one's report and
    /// page beside this one's first pictures should it stop half-way (a full disk, a signal,
    /// `kill -9`), and its pictures beside this one's page when it finishes: its report and page
    /// go first, then the pictures it wrote (only names this writes: the folder may hold others).
    private func retireEarlierComparison() throws(CompareError) {
        let manager = FileManager.default
        var earlier = [ComparisonReport.fileName, ComparisonPage.fileName].map { (folder as NSString).appendingPathComponent($0) }
        for (subfolder, pattern) in [("diff", #"^\d{6}-\d{6}\.png$"#), ("frames", #"^[ab]-\d{6}\.png$"#)] {
            let path = (folder as NSString).appendingPathComponent(subfolder)
            let names = (try? manager.contentsOfDirectory(atPath: path)) ?? []
            earlier += names.filter { $0.range(of: pattern, options: .regularExpression) != nil }
                .map { (path as NSString).appendingPathComponent($0) }
        }
        for path in earlier where manager.fileExists(atPath: path) {
            do {
                try manager.removeItem(atPath: path)
            } catch {
                throw CompareError(.output, "cannot replace the earlier comparison in \(folder)", cause: ErrorText("\(error)"))
            }
        }
    }

    private func path(_ subfolder: String, _ name: String) -> String {
        ((folder as NSString).appendingPathComponent(subfolder) as NSString).appendingPathComponent(name + ".png")
    }
}
