import Compositor
import Foundation
import Synchronization

/// `render-stories compare A B`: the frames of two renders (folders or clips) paired and
/// measured, SSIM and PSNR a frame (`PictureDifference`), and the verdict by the thresholds.
public enum RenderComparison {
    /// Frames read and measured together: a batch of each side is decoded side by side, then
    /// its pairs measured side by side, so no more than two batches of pictures are held.
    static let batch = 8

    /// Compares `a` with `b` by `options`. Throws when either cannot be read; differences are
    /// the report's, not errors.
    public static func run(_ a: String, _ b: String, options: ComparisonOptions) throws(CompareError) -> ComparisonReport {
        let sideA = try ComparedRender(a), sideB = try ComparedRender(b)
        var frames: [ComparedFrame] = []
        while true {
            let first = sideA.read
            let imagesA = try sideA.nextFrames(batch), imagesB = try sideB.nextFrames(batch)
            frames += measure(imagesA, imagesB, firstIndex: first, options: options)
            if imagesA.count < batch && imagesB.count < batch { break }
            // One side ended: the rest of the other is read without pairing.
            if imagesA.count < batch || imagesB.count < batch {
                frames += try unpaired(imagesA.count < batch ? sideB : sideA, isA: imagesB.count < batch)
                break
            }
        }
        let framesA = frames.count { $0.a != nil }, framesB = frames.count { $0.b != nil }
        return ComparisonReport(a: a, b: b, framesA: framesA, framesB: framesB, pairing: "index", frames: frames,
                                thresholds: .init(minSSIM: options.minSSIM, minPSNR: options.minPSNR,
                                                  maxChangedFrames: options.maxChangedFrames, region: options.region))
    }

    /// The rest of one side's frames, each reported as deleted (A's) or inserted (B's).
    private static func unpaired(_ side: ComparedRender, isA: Bool) throws(CompareError) -> [ComparedFrame] {
        var frames: [ComparedFrame] = []
        while true {
            let first = side.read
            let images = try side.nextFrames(batch)
            frames += images.indices.map { unpairedFrame(first + $0, isA: isA) }
            if images.count < batch { return frames }
        }
    }

    private static func unpairedFrame(_ index: Int, isA: Bool) -> ComparedFrame {
        ComparedFrame(a: isA ? index : nil, b: isA ? nil : index, verdict: isA ? .deleted : .inserted,
                      ssim: nil, ssimPlanes: nil, psnr: nil, note: nil)
    }

    /// Frame `firstIndex + i` of A against the same of B, side by side; the frames past the
    /// shorter batch are unpaired.
    static func measure(_ a: [RGBAImage], _ b: [RGBAImage], firstIndex: Int, options: ComparisonOptions) -> [ComparedFrame] {
        let pairs = min(a.count, b.count)
        let measured = Mutex<[ComparedFrame?]>(Array(repeating: nil, count: pairs))
        DispatchQueue.concurrentPerform(iterations: pairs) { i in
            let frame = compare(a[i], b[i], index: firstIndex + i, options: options)
            measured.withLock { $0[i] = frame }
        }
        var frames = measured.withLock { $0.map { $0! } }
        frames += (pairs..<a.count).map { unpairedFrame(firstIndex + $0, isA: true) }
        frames += (pairs..<b.count).map { unpairedFrame(firstIndex + $0, isA: false) }
        return frames
    }

    /// One pair: its figures and its verdict.
    static func compare(_ a: RGBAImage, _ b: RGBAImage, index: Int, options: ComparisonOptions) -> ComparedFrame {
        guard a.width == b.width, a.height == b.height else {
            return ComparedFrame(a: index, b: index, verdict: .changed, ssim: 0, ssimPlanes: [0, 0, 0], psnr: nil,
                                 note: "\(a.width)x\(a.height) against \(b.width)x\(b.height)")
        }
        var region = options.region
        if let r = region, r.x + r.width > a.width || r.y + r.height > a.height {
            // A region past a smaller render's edge is cut to it.
            region = TileRect(x: min(r.x, a.width), y: min(r.y, a.height), width: max(0, min(r.width, a.width - r.x)),
                                   height: max(0, min(r.height, a.height - r.y)))
        }
        let difference = PictureDifference(a, b, region: region)
        let changed: Bool
        if options.minSSIM == nil && options.minPSNR == nil {
            changed = !difference.isIdentical
        } else {
            changed = (options.minSSIM.map { difference.ssim < $0 } ?? false)
                || (options.minPSNR.map { minimum in difference.psnr.map { $0 < minimum } ?? false } ?? false)
        }
        return ComparedFrame(a: index, b: index, verdict: changed ? .changed : .same, ssim: difference.ssim,
                             ssimPlanes: difference.ssimPlanes, psnr: difference.psnr, note: nil)
    }
}
