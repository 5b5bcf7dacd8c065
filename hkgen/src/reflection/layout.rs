//! Member offsets and class sizes from platform-neutral class records and a file's layout rules.
