// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: output files (temporary name, renamed when complete;
 * every write checked) and the check that no output overwrites an input. */
#include "app.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpufft_app {

namespace {

// The creation mode a plain fopen() would give: 0666 less the umask.
mode_t file_mode()
{
    static const mode_t mode = [] {
        const mode_t mask = ::umask(022);
        ::umask(mask);
        return mode_t(0666 & ~mask);
    }();
    return mode;
}

//! Creates `path`'s temporary file (".NAME.XXXXXX" in its directory) and sets `temp` to its name; -1 and errno on failure.
int create_temp(const std::string& path, std::string& temp)
{
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    temp = dir + "." + name + ".XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd >= 0)
        ::fchmod(fd, file_mode());
    return fd;
}

} // namespace

output_file::output_file(const std::string& path) : d_path(path)
{
    if (path == "-") {
        d_file = stdout;
        return;
    }
    struct stat st;
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        throw app_error(path + ": cannot write: it is a directory");
    if (exists && !S_ISREG(st.st_mode)) { // a FIFO or a device: no rename
        d_file = std::fopen(path.c_str(), "w");
        if (!d_file)
            throw app_error(path + ": cannot write: " + std::strerror(errno));
        return;
    }
    std::string temp;
    const int fd = create_temp(path, temp);
    if (fd < 0)
        throw app_error(path + ": cannot write: " + std::strerror(errno));
    d_file = ::fdopen(fd, "w");
    if (!d_file) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw app_error(path + ": cannot write: " + std::strerror(errno));
    }
    d_temp = temp;
}

output_file::~output_file()
{
    if (d_file && d_file != stdout)
        std::fclose(d_file);
    if (!d_temp.empty())
        ::unlink(d_temp.c_str());
}

void output_file::check()
{
    if (!std::ferror(d_file))
        return;
    const int err = errno;
    if (d_file == stdout && err == EPIPE) { // the reader went away: stop quietly
        std::clearerr(d_file);
        request_stop(SIGPIPE);
        return;
    }
    throw app_error(d_path + ": write failed: " + std::strerror(err));
}

void output_file::commit()
{
    std::fflush(d_file); // a failure sets the error flag and errno for check()
    check();
    if (d_file == stdout)
        return;
    std::FILE* f = d_file;
    d_file = nullptr;
    if (std::fclose(f) != 0)
        throw app_error(d_path + ": write failed: " + std::strerror(errno));
    if (!d_temp.empty()) {
        if (std::rename(d_temp.c_str(), d_path.c_str()) != 0)
            throw app_error(d_path + ": cannot rename " + d_temp + " into place: " + std::strerror(errno));
        d_temp.clear();
    }
}

void refuse_unwritable_outputs(const std::vector<std::pair<std::string, std::string>>& outputs)
{
    for (const auto& [option, path] : outputs) {
        if (path.empty() || path == "-" || path == "none")
            continue;
        const auto refuse = [&, &option = option, &path = path](const std::string& why) {
            throw usage_error(option + " " + path + ": cannot write: " + why);
        };
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            refuse("it is a directory");
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) { // a FIFO or a device, opened when written
            if (::access(path.c_str(), W_OK) != 0)
                refuse(std::strerror(errno));
            continue;
        }
        // As output_file will: a temporary file in its directory, removed at once.
        std::string temp;
        const int fd = create_temp(path, temp);
        if (fd < 0)
            refuse(std::strerror(errno));
        ::close(fd);
        ::unlink(temp.c_str());
    }
}

void refuse_overwriting_inputs(const std::vector<std::string>& inputs,
                               const std::vector<std::pair<std::string, std::string>>& outputs)
{
    for (const auto& [option, path] : outputs) {
        struct stat out;
        if (path.empty() || path == "-" || path == "none" || ::stat(path.c_str(), &out) != 0)
            continue;
        for (const auto& input : inputs) {
            struct stat in;
            const int got = input == "-" ? ::fstat(STDIN_FILENO, &in) : ::stat(input.c_str(), &in);
            if (got == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                throw usage_error(option + " " + path + " is the input " +
                                  (input == "-" ? "(standard input)" : input) + ": refusing to overwrite it");
        }
    }
}

} // namespace gpufft_app
