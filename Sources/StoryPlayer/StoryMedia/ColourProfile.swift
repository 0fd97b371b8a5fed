internal import CLittleCMS

/// A photo's embedded ICC profile (Display P3 from phones, Adobe RGB from cameras), read by
/// Little CMS: owns the profile (`cmsOpenProfileFromMem` / `cmsCloseProfile`).
///
/// Pictures are drawn as sRGB, so a photo in another colour space is converted to sRGB, as
/// libvips and browsers do; one tagged sRGB is left as it is (no work, and the same bytes).
final class ColourProfile: @unchecked Sendable {
    /// Immutable once made; lcms2 profiles may be read from any thread.
    private let profile: cmsHPROFILE
    /// The profile's own name (its `desc` tag), e.g. "Display P3"; what `probe` reports.
    let name: String
    /// Whether its colorants are sRGB's, so the conversion would change nothing.
    let isSRGB: Bool

    /// The profile in `icc` (an ICC file's bytes), when Little CMS can read it and it describes
    /// RGB pictures; nil otherwise (a damaged or grey profile leaves the photo's colours as stored).
    init?(icc: UnsafeRawBufferPointer) {
        guard let base = icc.baseAddress, icc.count > 0,
              let profile = cmsOpenProfileFromMem(base, cmsUInt32Number(icc.count)) else { return nil }
        guard cmsGetColorSpace(profile) == cmsSigRgbData else {
            cmsCloseProfile(profile)
            return nil
        }
        self.profile = profile
        name = ColourProfile.description(of: profile)
        isSRGB = ColourProfile.hasSRGBColorants(profile)
    }

    /// A profile built from H.273 colour primaries, as a HEIF's `nclx` box names them without an
    /// ICC profile (a camera's or an Android phone's `.heic`/`.hif`): BT.2020 (9) or Display P3
    /// (12, SMPTE EG 432-1), white D65 (`cmsCreateRGBProfile`). nil for the primaries sRGB shares
    /// (BT.709, 1) or is close to (BT.601's), and for ones not listed.
    ///
    /// The curve is sRGB's for every SDR transfer: the conversion changes only the primaries, and
    /// with the same curve at both ends it leaves the greys alone, as Display P3's own profile does.
    init?(h273Primaries code: Int) {
        let primaries: [(x: Double, y: Double)]
        switch code {
        case 9: primaries = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]
        case 12: primaries = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
        default: return nil
        }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries[0].x, y: primaries[0].y, Y: 1),
                                     Green: cmsCIExyY(x: primaries[1].x, y: primaries[1].y, Y: 1),
                                     Blue: cmsCIExyY(x: primaries[2].x, y: primaries[2].y, Y: 1))
        let parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        guard let curve = cmsBuildParametricToneCurve(nil, 4, parameters) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = cmsCreateRGBProfile(&white, &triple, &curves) else { return nil }
        self.profile = profile
        name = code == 9 ? "BT.2020 (nclx)" : "Display P3 (nclx)"
        isSRGB = false
    }

    deinit { cmsCloseProfile(profile) }

    // MARK: - Conversion

    /// Converts 8-bit RGB (or RGBA, alpha kept) rows in place to sRGB, relative colorimetric
    /// (`cmsCreateTransform`, `cmsDoTransformLineStride`), as libvips does by default.
    func convertToSRGB(_ rows: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, hasAlpha: Bool) {
        guard let sRGB = cmsCreate_sRGBProfile() else { return }
        defer { cmsCloseProfile(sRGB) }
        let format = hasAlpha ? story_lcms_rgba8() : story_lcms_rgb8()
        let flags = cmsUInt32Number(hasAlpha ? cmsFLAGS_COPY_ALPHA : 0)
        guard let transform = cmsCreateTransform(profile, format, sRGB, format, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags)
        else { return }
        defer { cmsDeleteTransform(transform) }
        cmsDoTransformLineStride(transform, rows, rows, cmsUInt32Number(width), cmsUInt32Number(height),
                                 cmsUInt32Number(stride), cmsUInt32Number(stride), 0, 0)
    }

    /// The Little CMS in use (`cmsGetEncodedCMMversion`, 2140 for 2.14), e.g. "2.14".
    static var version: String {
        let encoded = Int(cmsGetEncodedCMMversion())
        return "\(encoded / 1000).\(encoded % 1000 / 10)"
    }

    // MARK: - What the profile says

    private static func description(of profile: cmsHPROFILE) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
        let text = length > 0 ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return text.isEmpty ? "unnamed ICC profile" : text
    }

    /// The red, green and blue colorants (`rXYZ`, `gXYZ`, `bXYZ`) match sRGB's to 0.002, and so do
    /// its tone curves at a few levels: a matrix-shaper sRGB profile, whatever its name.
    private static func hasSRGBColorants(_ profile: cmsHPROFILE) -> Bool {
        guard let sRGB = cmsCreate_sRGBProfile() else { return false }
        defer { cmsCloseProfile(sRGB) }
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let mine = cmsReadTag(profile, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee,
                  let theirs = cmsReadTag(sRGB, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee else { return false }
            if abs(mine.X - theirs.X) > 0.002 || abs(mine.Y - theirs.Y) > 0.002 || abs(mine.Z - theirs.Z) > 0.002 { return false }
        }
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let mine = cmsReadTag(profile, tag).map(OpaquePointer.init),
                  let theirs = cmsReadTag(sRGB, tag).map(OpaquePointer.init) else { return false }
            for level: Float in [0.02, 0.2, 0.5, 0.8] where abs(cmsEvalToneCurveFloat(mine, level) - cmsEvalToneCurveFloat(theirs, level)) > 0.002 {
                return false
            }
        }
        return true
    }
}
