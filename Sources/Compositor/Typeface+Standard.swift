import Foundation

// MARK: - The faces the pictures use

extension Typeface {
    public enum Weight: String, Sendable, CaseIterable {
        case regular, bold
    }

    /// Where Debian's `fonts-dejavu-core` puts DejaVu Sans (`scripts/install-deps.sh` installs it).
    static let debianFonts: [Weight: String] = [
        .regular: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        .bold: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    ]

    /// The font file for `weight`: DejaVu Sans at Debian's path, else whatever fontconfig's
    /// `fc-match` picks for a sans-serif of that weight (another distribution's layout).
    static func locate(_ weight: Weight) -> String? {
        if let path = debianFonts[weight], FileManager.default.isReadableFile(atPath: path) { return path }
        let fcMatch = "/usr/bin/fc-match"
        guard FileManager.default.isExecutableFile(atPath: fcMatch) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fcMatch)
        process.arguments = ["--format=%{file}", weight == .bold ? "DejaVu Sans:bold" : "DejaVu Sans"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && FileManager.default.isReadableFile(atPath: path) ? path : nil
    }

    /// The font file of `weight` (as `locate` finds it), for a renderer that reads fonts itself
    /// (libass, for captions), so its text is the same DejaVu Sans as the pictures'.
    public static func fontFile(_ weight: Weight) -> String? { locate(weight) }

    private static let loaded: [Weight: Result<Typeface, CompositorError>] = Dictionary(
        uniqueKeysWithValues: Weight.allCases.map { weight in
            (weight, Result { () throws(CompositorError) in
                guard let path = locate(weight) else {
                    throw CompositorError(.font, "no \(weight.rawValue) font for the pictures' text",
                                          cause: "install Debian's fonts-dejavu-core (scripts/install-deps.sh does)")
                }
                return try Typeface(path: path)
            })
        })

    /// The face of `weight`, opened once for the process; an error that says what to install
    /// when there is none. Renders call this before their first frame (`checkAvailable`).
    public static func standard(_ weight: Weight) throws(CompositorError) -> Typeface {
        try loaded[weight]!.get()
    }

    /// Throws unless both faces open: a render checks this before any work, so a missing font
    /// is a clear error at the start, not a crash at the first error card.
    public static func checkAvailable() throws(CompositorError) {
        for weight in Weight.allCases { _ = try standard(weight) }
    }

    /// DejaVu Sans, for labels and reasons. Drawing without a font is a bug of the caller, which
    /// should have called `checkAvailable()` first.
    public static var regular: Typeface { available(.regular) }
    /// DejaVu Sans Bold, for titles and chips.
    public static var bold: Typeface { available(.bold) }

    private static func available(_ weight: Weight) -> Typeface {
        switch loaded[weight]! {
        case .success(let face): return face
        case .failure(let error): preconditionFailure("text drawn without a font (check Typeface.checkAvailable() first): \(error)")
        }
    }
}
