// Placeholder replaced by the real driver in the same change.
int main() { return 0; }
