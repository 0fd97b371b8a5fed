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
        if options.faces && sideA.records == nil && sideB.records == nil {
            throw CompareError(.options, "--face needs a render folder with its frames.jsonl on either side "
                               + "(a clip, or a render made before frames.jsonl, has no faces to measure)")
        }
        let (steps, pairing, counts) = try pair(sideA, sideB)
        try check(options.region, fits: sideA, sideB)
        let pictures = pageFolder.map { ComparisonPictures(folder: $0, writesA: sideA.kind == .clip, writesB: sideB.kind == .clip) }
        try pictures?.prepare()
        let frames = try measure(steps, sideA, sideB, options: options, pictures: pictures)
        if let failure = pictures?.written.failure { throw failure }
        var trace: [TraceDifference] = []
        if let traceA = sideA.trace, let traceB = sideB.trace {
            trace = TraceComparison.differences(traceA, traceB, ignored: options.ignoredTraceFields, fpsA: sideA.fps, fpsB: sideB.fps)
        }
        return ComparisonReport(a: a, b: b, framesA: counts.a, framesB: counts.b,
                                pairing: pairing, frames: frames,
                                traceCompared: sideA.trace != nil && sideB.trace != nil, trace: trace,
                                thresholds: options,
                                page: .init(kindA: sideA.kind, kindB: sideB.kind, pictures: pictures?.written))
    }

    /// The frames of the two sides paired: by what they showed when both are renders with
    /// `frames.jsonl` (every pair then measured: the same showing may be drawn differently),
    /// otherwise by their pictures' fingerprints; by index past `maxEdits`.
    static func pair(_ sideA: ComparedRender, _ sideB: ComparedRender) throws(CompareError)
        -> (steps: [FrameAlignment.Step], pairing: String, counts: (a: Int, b: Int)) {
        if let keysA = sideA.traceKeys(), let keysB = sideB.traceKeys() {
            let aligned = FrameAlignment.align(keysA, keysB, maxEdits: maxEdits)
            let steps = (aligned ?? FrameAlignment.byIndex(keysA, keysB)).map { step -> FrameAlignment.Step in
                if case .same(let a, let b) = step { .replaced(a: a, b: b) } else { step }
            }
            return (steps, aligned == nil ? "index" : "trace", (keysA.count, keysB.count))
        }
        let printsA = try sideA.fingerprints(), printsB = try sideB.fingerprints()
        let aligned = FrameAlignment.align(printsA, printsB, maxEdits: maxEdits)
        return (aligned ?? FrameAlignment.byIndex(printsA, printsB), aligned == nil ? "index" : "content",
                (printsA.count, printsB.count))
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
    /// the pairs to measure are read a batch at a time and measured side by side, two frame
    /// files of the same bytes without decoding them.
    static func measure(_ steps: [FrameAlignment.Step], _ sideA: ComparedRender, _ sideB: ComparedRender,
                        options: ComparisonOptions, pictures: ComparisonPictures? = nil) throws(CompareError) -> [ComparedFrame] {
        // Positions in the lists of frames, reported as the frames' numbers.
        let numberA = sideA.number(at:), numberB = sideB.number(at:)
        var frames: [ComparedFrame?] = steps.map { step in
            switch step {
            case .same(let a, let b):
                identical(a: numberA(a), b: numberB(b), record: sideA.record(at: a) ?? sideB.record(at: b),
                          size: sideA.firstSize.map { ($0.width, $0.height) }, options: options)
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
            let loadedA = try sideA.load(batch.map(\.a)), loadedB = try sideB.load(batch.map(\.b))
            let pairs = batch.map { (a: numberA($0.a), b: numberB($0.b), record: sideA.record(at: $0.a) ?? sideB.record(at: $0.b)) }
            let measured = SideBySide.map(batch.count) { i in
                Result { () throws(CompareError) in
                    try compare(loadedA[i], loadedB[i], a: pairs[i].a, b: pairs[i].b, record: pairs[i].record,
                                options: options, pictures: pictures)
                }
            }
            for (pair, result) in zip(batch, measured) {
                switch result {
                case .success(let frame): frames[pair.slot] = frame
                case .failure(let error): throw error
                }
            }
        }
        return frames.map { $0! }
    }

    /// A pair to measure as loaded: two frame files of the same bytes are the same picture;
    /// otherwise both are decoded, measured, and when changed given to the page's pictures.
    static func compare(_ frameA: ComparedRender.LoadedFrame, _ frameB: ComparedRender.LoadedFrame, a: Int, b: Int,
                        record: FrameRecord?, options: ComparisonOptions,
                        pictures: ComparisonPictures?) throws(CompareError) -> ComparedFrame {
        if case .file(let bytesA, _) = frameA, case .file(let bytesB, _) = frameB, bytesA == bytesB {
            return identical(a: a, b: b, record: record, size: ShardMerge.pngSize(bytes: bytesA), options: options)
        }
        let imageA = try frameA.picture(), imageB = try frameB.picture()
        let frame = compare(imageA, imageB, a: a, b: b, record: record, options: options)
        if frame.verdict == .changed, imageA.width == imageB.width, imageA.height == imageB.height {
            pictures?.take(imageA, imageB, a: a, b: b)
        }
        return frame
    }

    /// One pair of pictures: its figures and its verdict.
    static func compare(_ imageA: RGBAImage, _ imageB: RGBAImage, a: Int, b: Int, record: FrameRecord? = nil,
                        options: ComparisonOptions) -> ComparedFrame {
        guard imageA.width == imageB.width, imageA.height == imageB.height else {
            return ComparedFrame(a: a, b: b, verdict: .changed, ssim: 0, ssimPlanes: [0, 0, 0], psnr: nil,
                                 note: "\(imageA.width)x\(imageA.height) against \(imageB.width)x\(imageB.height)")
        }
        if imageA.pixels == imageB.pixels {
            // Paired by the trace, two files may hold the same picture in different bytes.
            return identical(a: a, b: b, record: record, size: (imageA.width, imageA.height), options: options)
        }
        var region = options.region
        if let r = region, r.x + r.width > imageA.width || r.y + r.height > imageA.height {
            // A region past a frame's edge is cut to it.
            region = TileRect(x: r.x, y: r.y, width: max(0, min(r.width, imageA.width - r.x)),
                              height: max(0, min(r.height, imageA.height - r.y)))
        }
        let area = region ?? TileRect(x: 0, y: 0, width: imageA.width, height: imageA.height)
        guard area.width >= 2, area.height >= 2 else {
            // A frame (or what the region keeps of it) too small to measure: its pixels differ.
            return ComparedFrame(a: a, b: b, verdict: .changed, ssim: nil, ssimPlanes: nil, psnr: nil,
                                 note: region == nil ? "too small to measure" : "the region lies outside this frame")
        }
        let difference = PictureDifference(imageA, imageB, region: region)
        let faces = options.faces ? record.map { faceFigures(imageA, imageB, record: $0, region: region) } : nil
        var changed: Bool
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
        if let minimum = options.minSSIM, let faces, faces.contains(where: { ($0.ssim ?? 1) < minimum }) { changed = true }
        var frame = ComparedFrame(a: a, b: b, verdict: changed ? .changed : .same, ssim: difference.ssim,
                                  ssimPlanes: difference.ssimPlanes, psnr: difference.psnr, note: note)
        frame.faces = faces
        return frame
    }

    /// A pair of the same picture: SSIM 1, and 1 on each face with `--face`.
    static func identical(a: Int, b: Int, record: FrameRecord?, size: (Int, Int)?, options: ComparisonOptions) -> ComparedFrame {
        var frame = ComparedFrame(a: a, b: b, verdict: .same, ssim: 1, ssimPlanes: [1, 1, 1], psnr: nil, note: nil)
        if options.faces, let record, let size {
            frame.faces = FaceBoxes.of(record, width: size.0, height: size.1, region: options.region)
                .map { ComparedFace(story: $0.story, box: $0.box, ssim: 1) }
        }
        return frame
    }

    /// `--face`: SSIM inside each face's box on A's frame (`FaceBoxes`).
    static func faceFigures(_ imageA: RGBAImage, _ imageB: RGBAImage, record: FrameRecord, region: TileRect?) -> [ComparedFace] {
        FaceBoxes.of(record, width: imageA.width, height: imageA.height, region: region).map { face in
            let measurable = face.box.width >= 2 && face.box.height >= 2
            return ComparedFace(story: face.story, box: face.box,
                                ssim: measurable ? PictureDifference(imageA, imageB, region: face.box).ssim : nil)
        }
    }
}
