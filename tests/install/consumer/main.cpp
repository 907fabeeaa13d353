// A program outside the tessera tree, built against the installed package.
#include <tessera/runtime/runtime.hpp>

#include <cstdio>

int main() {
  tessera::Runtime rt(tessera::RuntimeOptions{.threads = 2});
  long sum = 0;
  tessera::Handle h = rt.create_handle("sum");
  for (int i = 0; i < 10; ++i) {
    rt.submit("add", {tessera::readwrite(h)}, [&sum, i] { sum += i; });
  }
  rt.wait_all();
  std::printf("consumer: %llu tasks, sum %ld\n",
              static_cast<unsigned long long>(rt.tasks_completed()), sum);
  return 0;
}
