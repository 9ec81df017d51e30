// caustica combine: adds up the float sums of a still's sample ranges (render --sample-range) and
// writes the still, the same as one process rendering all its samples with the same split.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "renderer/cli/cli_args.h"
#include "renderer/cli/commands.h"
#include "renderer/cli/shared_render.h"
#include "renderer/frame_renderer.h"
#include "renderer/output/exr.h"
#include "renderer/output/image.h"

namespace caustica {
namespace {

struct Part {
    std::string path;
    ExrImage exr;
};

Part ReadPart(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(Concat(path, ": error: cannot be read"));
    Part part{path, DecodeExr(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), path)};
    if (!part.exr.range)
        throw InputError(Concat(path, ": error: not a sample range's sum (written by caustica render --sample-range)"));
    return part;
}

}  // namespace

int CombineMain(const Args& args) {
    std::string output;
    std::vector<std::string> paths;
    ArgParser parser("caustica combine",
                     "Adds up the sample ranges of a still (EXR files written by caustica render --sample-range), in "
                     "the order of their samples, and writes the still as PNG, JPEG or EXR. The ranges must cover "
                     "the samples from 0 to S-1 once each.");
    parser.Option("-o", "FILE", "the still: .png, .jpg, .jpeg or .exr (required)", &output);
    parser.Rest("PART.exr", "the sample ranges' files, in any order", &paths);
    if (!parser.Parse(args)) return 0;
    if (output.empty()) throw InputError("caustica combine: -o FILE is required (see caustica combine --help)");
    if (paths.empty()) throw InputError("caustica combine: expected the sample ranges' .exr files");
    const OutputFile file = CheckOutputFile("-o", output);
    ImageFormatOf(file);

    std::vector<Part> parts;
    for (const std::string& path : paths) parts.push_back(ReadPart(path));
    // A fixed order, the samples', whatever order the files were named or finished in.
    std::stable_sort(parts.begin(), parts.end(),
                     [](const Part& a, const Part& b) { return a.exr.range->first < b.exr.range->first; });
    const SampleRange& first = *parts[0].exr.range;
    uint32_t next = 0;
    for (const Part& part : parts) {
        const SampleRange& r = *part.exr.range;
        const auto fail = [&](const std::string& what) { throw InputError(Concat(part.path, ": error: ", what)); };
        if (r.total != first.total || r.scale != first.scale || r.tone_map != first.tone_map)
            fail(Concat("from another render: ", r.total, " samples at scale ", r.scale, " (tone map ",
                        ToneMapName(r.tone_map), "), where ", parts[0].path, " has ", first.total, " at ",
                        first.scale, " (", ToneMapName(first.tone_map), ")"));
        if (part.exr.image.width != parts[0].exr.image.width || part.exr.image.height != parts[0].exr.image.height)
            fail(Concat("the image is ", part.exr.image.width, "x", part.exr.image.height, ", where ", parts[0].path,
                        " is ", parts[0].exr.image.width, "x", parts[0].exr.image.height));
        if (r.first != next)
            fail(r.first < next ? Concat("samples ", r.first, " to ", r.first + r.count - 1, " overlap another part's")
                                : Concat("samples ", next, " to ", r.first - 1, " are in no part"));
        next = r.first + r.count;
    }
    if (next != first.total)
        throw InputError(Concat("caustica combine: samples ", next, " to ", first.total - 1, " of ", first.total,
                                " are in no part"));
    std::vector<Image> sums;
    for (Part& part : parts) sums.push_back(std::move(part.exr.image));
    WriteImage(ImageOfSum(SumInOrder(sums), first.total, first.scale), file, first.tone_map);
    std::fprintf(stderr, "combined %zu part%s (%u samples): wrote %s\n", parts.size(), parts.size() == 1 ? "" : "s",
                 first.total, output.c_str());
    return 0;
}

}  // namespace caustica
