import Foundation
import StoryBase
import StoryMedia

// MARK: - The report for people and for machines

extension ComparisonReport {
    /// Every frame's figures, the pairing and the verdict, as JSON (`--json`, `compare.json`).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Frames are the bulk: one line each keeps a diff of two reports readable.
        var lines = ["{"]
        let fields: [(String, String)] = [
            ("a", encode(a, encoder)), ("b", encode(b, encoder)), ("frames_a", "\(framesA)"), ("frames_b", "\(framesB)"),
            ("pairing", encode(pairing, encoder)), ("thresholds", encode(thresholds, encoder)),
            ("changed", "\(changed)"), ("inserted", "\(inserted)"), ("deleted", "\(deleted)"), ("passed", "\(passed)"),
            ("mean_ssim", meanSSIM.map { "\($0)" } ?? "null"), ("min_psnr", minPSNR.map { "\($0)" } ?? "null"),
            ("trace_compared", "\(traceCompared)"),
        ]
        lines += fields.map { "  \"\($0.0)\": \($0.1)," }
        lines.append("  \"trace\": [")
        lines += trace.enumerated().map { "    " + encode($0.element, encoder) + ($0.offset + 1 < trace.count ? "," : "") }
        lines.append("  ],")
        lines.append("  \"frames\": [")
        lines += frames.enumerated().map { "    " + encode($0.element, encoder) + ($0.offset + 1 < frames.count ? "," : "") }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    private func encode<T: Encodable>(_ value: T, _ encoder: JSONEncoder) -> String {
        // Encoding these plain values cannot fail.
        String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// A few lines: what was compared, the worst frames, the trace's differences, the verdict.
    public func text(worstShown: Int = 10) -> String {
        var lines = ["A: \(a) (\(framesA) frames)", "B: \(b) (\(framesB) frames), paired by \(pairing)"]
        var figures = ["frames: changed \(changed), inserted \(inserted), deleted \(deleted)"]
        if let meanSSIM { figures.append(String(format: "SSIM mean %.6f", meanSSIM)) }
        if let worst { figures.append(String(format: "lowest %.6f at frame %d", worst.ssim, worst.a)) }
        figures.append(minPSNR.map { String(format: "PSNR lowest %.2f dB", $0) } ?? "PSNR inf (no sample differs)")
        lines.append(figures.joined(separator: "; "))
        let notable = frames.filter { $0.verdict != .same }
            .sorted { ($0.ssim ?? -1, $0.a ?? $0.b ?? 0) < ($1.ssim ?? -1, $1.a ?? $1.b ?? 0) }
        for frame in notable.prefix(worstShown) { lines.append("  " + frame.line) }
        if notable.count > worstShown { lines.append("  … \(notable.count - worstShown) more (--json lists every frame)") }
        if traceCompared {
            lines.append(trace.isEmpty ? "traces: the same" : "traces: \(trace.count) difference\(trace.count == 1 ? "" : "s")")
            for difference in trace.prefix(worstShown) { lines.append("  " + difference.line) }
            if trace.count > worstShown { lines.append("  … \(trace.count - worstShown) more (--json lists them all)") }
        }
        lines.append(verdict)
        return lines.joined(separator: "\n")
    }

    /// "PASS", or "FAIL: " and why.
    var verdict: String {
        let differing = changed + inserted + deleted, allowed = thresholds.maxChangedFrames
        var reasons: [String] = []
        if differing > allowed { reasons.append("\(differing) frame\(differing == 1 ? "" : "s") differ (\(allowed) allowed)") }
        if !trace.isEmpty { reasons.append("the traces differ") }
        return reasons.isEmpty ? "PASS" : "FAIL: " + reasons.joined(separator: "; ")
    }

    /// The report's file in a folder.
    public static let fileName = "compare.json"

    /// Writes `compare.json` into `folder` (made if missing), whole or not at all, and
    /// `compare.html` when the comparison wrote its pictures there (`RenderComparison.run`'s
    /// `pageFolder`).
    public func write(to folder: String) throws(CompareError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CompareError(.output, "cannot make \(folder)", cause: ErrorText("\(error)"))
        }
        let path = (folder as NSString).appendingPathComponent(Self.fileName)
        do {
            try AtomicFile.write(Array(json.utf8), to: path)
        } catch {
            throw CompareError(.output, "cannot write \(path)", cause: error)
        }
        if page?.pictures != nil { try ComparisonPage(report: self, folder: folder).write() }
    }
}

extension TraceDifference {
    /// "changed play of beach at frame 49 (lines 8, 8): t 1.6 → 1.633".
    var line: String {
        var text = "\(kind.rawValue) \(event)" + (story.map { " of \($0)" } ?? "")
        if let frame { text += " at frame \(frame)" }
        text += " (line " + [lineA.map { "\($0) of A" }, lineB.map { "\($0) of B" }].compactMap { $0 }.joined(separator: ", ") + ")"
        if let fields, !fields.isEmpty {
            text += ": " + fields.keys.sorted().map { "\($0) \(fields[$0]![0]) → \(fields[$0]![1])" }.joined(separator: ", ")
        }
        return text
    }
}

extension ComparedFrame {
    /// "frame 12: changed, SSIM 0.981234 (Y 0.97 Cb 0.99 Cr 0.99), PSNR 38.21 dB".
    var line: String {
        let name = switch (a, b) {
        case let (a?, b?) where a == b: "frame \(a)"
        case let (a?, b?): "frame \(a) (B's \(b))"
        case let (a?, nil): "frame \(a) of A"
        case let (nil, b?): "frame \(b) of B"
        case (nil, nil): "no frame"
        }
        var text = "\(name): \(verdict.rawValue)"
        if let ssim, let planes = ssimPlanes, planes.count == 3 {
            text += String(format: ", SSIM %.6f (Y %.4f Cb %.4f Cr %.4f)", ssim, planes[0], planes[1], planes[2])
        }
        if let psnr { text += String(format: ", PSNR %.2f dB", psnr) }
        if let note { text += " (\(note))" }
        return text
    }
}
