import Compositor

/// `render-stories compare A B`: the frames of two renders (folders or clips) aligned by their
/// content (`FrameAlignment`), the pairs that differ measured, SSIM and PSNR a frame
/// (`PictureDifference`), and the verdict by the thresholds.
public enum RenderComparison {
    /// The most frames inserted and deleted the alignment looks for (a changed frame counts
    /// two); renders further apart are paired by index.
    static let maxEdits = 1000

    /// Compares `a` with `b` by `options`. Throws when either cannot be read; differences are
    /// the report's, not errors. With `pageFolder`, the pictures `compare.html` shows are
    /// written there as the pairs are measured (`ComparisonPictures`).
    public static func run(_ a: String, _ b: String, options: ComparisonOptions,
                           pageFolder: String? = nil) throws(CompareError) -> ComparisonReport {
        let sideA = try ComparedRender(a), sideB = try ComparedRender(b)
        let printsA = try sideA.fingerprints(), printsB = try sideB.fingerprints()
        try check(options.region, fits: sideA, sideB)
        let aligned = FrameAlignment.align(printsA, printsB, maxEdits: maxEdits)
        let pictures = pageFolder.map { ComparisonPictures(folder: $0, writesA: sideA.kind == .clip, writesB: sideB.kind == .clip) }
        try pictures?.prepare()
        let frames = try measure(aligned ?? FrameAlignment.byIndex(printsA, printsB), sideA, sideB, options: options,
                                 pictures: pictures)
        if let failure = pictures?.written.failure { throw failure }
        var trace: [TraceDifference] = []
        if let traceA = sideA.trace, let traceB = sideB.trace {
            trace = TraceComparison.differences(traceA, traceB, ignored: options.ignoredTraceFields, fpsA: sideA.fps, fpsB: sideB.fps)
        }
        return ComparisonReport(a: a, b: b, framesA: printsA.count, framesB: printsB.count,
                                pairing: aligned == nil ? "index" : "content", frames: frames,
                                traceCompared: sideA.trace != nil && sideB.trace != nil, trace: trace,
                                thresholds: options,
                                page: .init(kindA: sideA.kind, kindB: sideB.kind, pictures: pictures?.written))
    }

    /// A region must leave at least 2x2 pixels inside the frames of both sides.
    private static func check(_ region: TileRect?, fits sides: ComparedRender...) throws(CompareError) {
        guard let region else { return }
        for side in sides {
            guard let size = side.firstSize else { continue }
            if region.x + 2 > size.width || region.y + 2 > size.height {
                throw CompareError(.options, "--region \(region.x),\(region.y),\(region.width),\(region.height) lies outside "
                                   + "the \(size.width)x\(size.height) frames of \(side.path)")
            }
        }
    }

    /// Each step as a compared frame: equal pictures are the same without being read again;
    /// replaced ones are read a batch at a time and measured side by side.
    static func measure(_ steps: [FrameAlignment.Step], _ sideA: ComparedRender, _ sideB: ComparedRender,
                        options: ComparisonOptions, pictures: ComparisonPictures? = nil) throws(CompareError) -> [ComparedFrame] {
        // Positions in the lists of frames, reported as the frames' numbers.
        let numberA = sideA.number(at:), numberB = sideB.number(at:)
        var frames: [ComparedFrame?] = steps.map { step in
            switch step {
            case .same(let a, let b):
                ComparedFrame(a: numberA(a), b: numberB(b), verdict: .same, ssim: 1, ssimPlanes: [1, 1, 1], psnr: nil, note: nil)
            case .deleted(let a):
                ComparedFrame(a: numberA(a), b: nil, verdict: .deleted, ssim: nil, ssimPlanes: nil, psnr: nil, note: nil)
            case .inserted(let b):
                ComparedFrame(a: nil, b: numberB(b), verdict: .inserted, ssim: nil, ssimPlanes: nil, psnr: nil, note: nil)
            case .replaced: nil
            }
        }
        let replaced = steps.enumerated().compactMap { (slot, step) -> (slot: Int, a: Int, b: Int)? in
            if case .replaced(let a, let b) = step { (slot, a, b) } else { nil }
        }
        for start in stride(from: 0, to: replaced.count, by: ComparedRender.batch) {
            let batch = Array(replaced[start..<min(start + ComparedRender.batch, replaced.count)])
            let imagesA = try sideA.frames(at: batch.map(\.a)), imagesB = try sideB.frames(at: batch.map(\.b))
            let numbers = batch.map { (a: numberA($0.a), b: numberB($0.b)) }
            let measured = SideBySide.map(batch.count) { i in
                let frame = compare(imagesA[i], imagesB[i], a: numbers[i].a, b: numbers[i].b, options: options)
                if frame.verdict == .changed, imagesA[i].width == imagesB[i].width, imagesA[i].height == imagesB[i].height {
                    pictures?.take(imagesA[i], imagesB[i], a: numbers[i].a, b: numbers[i].b)
                }
                return frame
            }
            for (pair, frame) in zip(batch, measured) { frames[pair.slot] = frame }
        }
        return frames.map { $0! }
    }

    /// One pair whose fingerprints differ: its figures and its verdict.
    static func compare(_ imageA: RGBAImage, _ imageB: RGBAImage, a: Int, b: Int, options: ComparisonOptions) -> ComparedFrame {
        guard imageA.width == imageB.width, imageA.height == imageB.height else {
            return ComparedFrame(a: a, b: b, verdict: .changed, ssim: 0, ssimPlanes: [0, 0, 0], psnr: nil,
                                 note: "\(imageA.width)x\(imageA.height) against \(imageB.width)x\(imageB.height)")
        }
        var region = options.region
        if let r = region, r.x + r.width > imageA.width || r.y + r.height > imageA.height {
            // A region past a frame's edge is cut to it.
            region = TileRect(x: r.x, y: r.y, width: max(0, min(r.width, imageA.width - r.x)),
                              height: max(0, min(r.height, imageA.height - r.y)))
        }
        let area = region ?? TileRect(x: 0, y: 0, width: imageA.width, height: imageA.height)
        guard area.width >= 2, area.height >= 2 else {
            // A frame (or what the region keeps of it) too small to measure: its fingerprint differs.
            return ComparedFrame(a: a, b: b, verdict: .changed, ssim: nil, ssimPlanes: nil, psnr: nil,
                                 note: region == nil ? "too small to measure" : "the region lies outside this frame")
        }
        let difference = PictureDifference(imageA, imageB, region: region)
        let changed: Bool
        var note: String?
        if options.minSSIM == nil && options.minPSNR == nil {
            // No threshold: any pixel that differs is a change, even one the 4:2:0 picture
            // rounds away (or outside the region).
            changed = region == nil || !difference.isIdentical
            if changed && difference.isIdentical { note = "the RGB differs; its 4:2:0 picture does not" }
        } else {
            changed = (options.minSSIM.map { difference.ssim < $0 } ?? false)
                || (options.minPSNR.map { minimum in difference.psnr.map { $0 < minimum } ?? false } ?? false)
        }
        return ComparedFrame(a: a, b: b, verdict: changed ? .changed : .same, ssim: difference.ssim,
                             ssimPlanes: difference.ssimPlanes, psnr: difference.psnr, note: note)
    }
}
