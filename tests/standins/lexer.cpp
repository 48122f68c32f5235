// lexer - a C++ template-heavy stand-in (issue 19): a class lexer whose method scan does
// the work, words counted in a std::map of std::vector through a class template.
// usage: lexer ROUNDS
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace demo {

template <typename Key, typename Value, typename Less = std::less<Key>>
class table {
public:
	__attribute__((noinline)) void insert(const Key &k, const Value &v)
	{
		rows_[k].push_back(v);
	}
	std::size_t size() const { return rows_.size(); }

private:
	std::map<Key, std::vector<Value>, Less> rows_;
};

class lexer {
public:
	explicit lexer(std::string text) : text_(std::move(text)) {}
	__attribute__((noinline)) std::size_t scan(table<std::string, std::size_t> &out);

private:
	std::string text_;
};

std::size_t lexer::scan(table<std::string, std::size_t> &out)
{
	std::size_t words = 0, start = 0;
	for (std::size_t i = 0; i <= text_.size(); i++) {
		char c = i < text_.size() ? text_[i] : ' ';
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
		if (alpha)
			continue;
		if (i > start) {
			out.insert(text_.substr(start, i - start), start);
			words++;
		}
		start = i + 1;
	}
	return words;
}

} // namespace demo

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 0;
	if (rounds <= 0) {
		std::fprintf(stderr, "usage: lexer ROUNDS\n");
		return 2;
	}
	std::string text;
	for (int i = 0; i < 2000; i++)
		text += "int x_" + std::to_string(i % 97) + " = alpha + beta * gamma; ";
	std::size_t words = 0, keys = 0;
	for (long r = 0; r < rounds; r++) {
		demo::table<std::string, std::size_t> t;
		demo::lexer lx(text);
		words += lx.scan(t);
		keys = t.size();
	}
	std::printf("%zu words, %zu keys\n", words, keys);
	return 0;
}
