/* sqlstate — the one table of SQLSTATE codes the server raises
 * (PostgreSQL's codes and condition names: errcodes in its manual,
 * appendix A). Every module names its errors from here; a module that
 * needs a new code adds it here, under its class, with PostgreSQL's
 * condition name where PostgreSQL has the code. */
#ifndef CZ_SQLSTATE_H
#define CZ_SQLSTATE_H

/* class 00: successful completion */
#define SQLSTATE_SUCCESSFUL_COMPLETION               "00000"

/* class 01: warning */
#define SQLSTATE_PRIVILEGE_NOT_REVOKED               "01006"
#define SQLSTATE_PRIVILEGE_NOT_GRANTED               "01007"

/* class 08: connection exception */
#define SQLSTATE_CONNECTION_FAILURE                  "08006"
#define SQLSTATE_PROTOCOL_VIOLATION                  "08P01"

/* class 0A: feature not supported */
#define SQLSTATE_FEATURE_NOT_SUPPORTED               "0A000"

/* class 0L: invalid grantor */
#define SQLSTATE_INVALID_GRANT_OPERATION             "0LP01"

/* class 21: cardinality violation */
#define SQLSTATE_CARDINALITY                         "21000"

/* class 22: data exception */
#define SQLSTATE_STRING_DATA_RIGHT_TRUNCATION        "22001"
#define SQLSTATE_NUMERIC_OUT_OF_RANGE                "22003"
#define SQLSTATE_NULL_VALUE_NOT_ALLOWED              "22004"
#define SQLSTATE_INVALID_DATETIME_FORMAT             "22007"
#define SQLSTATE_DATETIME_FIELD_OVERFLOW             "22008"
#define SQLSTATE_INVALID_TZ_DISPLACEMENT             "22009"
#define SQLSTATE_SUBSTRING_ERROR                     "22011"
#define SQLSTATE_DIVISION_BY_ZERO                    "22012"
#define SQLSTATE_INVALID_PRECEDING_OR_FOLLOWING_SIZE "22013"
#define SQLSTATE_INVALID_ARGUMENT_FOR_NTILE          "22014"
#define SQLSTATE_INTERVAL_FIELD_OVERFLOW             "22015"
#define SQLSTATE_INVALID_ARGUMENT_FOR_NTH_VALUE      "22016"
#define SQLSTATE_SEQUENCE_LIMIT                      "2200H"
#define SQLSTATE_INVALID_REGEX                       "2201B"
#define SQLSTATE_INVALID_ARGUMENT_FOR_LOG            "2201E"
#define SQLSTATE_INVALID_ARGUMENT_FOR_POWER          "2201F"
#define SQLSTATE_INVALID_LIMIT                       "2201W"
#define SQLSTATE_INVALID_OFFSET                      "2201X"
#define SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE         "22021"
#define SQLSTATE_INVALID_PARAMETER                   "22023"
#define SQLSTATE_INVALID_ESCAPE_SEQUENCE             "22025"
#define SQLSTATE_ARRAY_SUBSCRIPT                     "2202E"
#define SQLSTATE_INVALID_TEXT                        "22P02"
#define SQLSTATE_INVALID_BINARY_REPRESENTATION       "22P03"
#define SQLSTATE_UNTRANSLATABLE_CHARACTER            "22P05"
#define SQLSTATE_BAD_COPY_FILE_FORMAT                "22P04"

/* class 23: integrity constraint violation */
#define SQLSTATE_NOT_NULL_VIOLATION                  "23502"
#define SQLSTATE_FOREIGN_KEY_VIOLATION               "23503"
#define SQLSTATE_UNIQUE_VIOLATION                    "23505"
#define SQLSTATE_CHECK_VIOLATION                     "23514"

/* class 25: invalid transaction state */
#define SQLSTATE_ACTIVE_TX                           "25001"
#define SQLSTATE_NO_ACTIVE_TX                        "25P01"
#define SQLSTATE_IN_FAILED_TX                        "25P02"

/* class 26: invalid SQL statement name */
#define SQLSTATE_UNDEFINED_PSTMT                     "26000"

/* class 28: invalid authorization specification */
#define SQLSTATE_INVALID_AUTHORIZATION               "28000"
#define SQLSTATE_INVALID_PASSWORD                    "28P01"

/* class 2B: dependent privilege descriptors still exist */
#define SQLSTATE_DEPENDENT_OBJECTS                   "2BP01"

/* class 34: invalid cursor name */
#define SQLSTATE_UNDEFINED_CURSOR                    "34000"

/* class 3B: savepoint exception */
#define SQLSTATE_INVALID_SAVEPOINT                   "3B001"

/* class 3D: invalid catalog name */
#define SQLSTATE_INVALID_CATALOG_NAME                "3D000"

/* class 3F: invalid schema name */
#define SQLSTATE_INVALID_SCHEMA                      "3F000"

/* class 40: transaction rollback */
#define SQLSTATE_SERIALIZATION                       "40001"
#define SQLSTATE_SNAPSHOT_TOO_OLD                    "72000"
#define SQLSTATE_DEADLOCK                            "40P01"

/* class 42: syntax error or access rule violation */
#define SQLSTATE_INSUFFICIENT_PRIVILEGE              "42501"
#define SQLSTATE_SYNTAX_ERROR                        "42601"
#define SQLSTATE_INVALID_NAME                        "42602"
#define SQLSTATE_NAME_TOO_LONG                       "42622"
#define SQLSTATE_DUPLICATE_COLUMN                    "42701"
#define SQLSTATE_AMBIGUOUS_COLUMN                    "42702"
#define SQLSTATE_UNDEFINED_COLUMN                    "42703"
#define SQLSTATE_UNDEFINED_OBJECT                    "42704"
#define SQLSTATE_DUPLICATE_OBJECT                    "42710"
#define SQLSTATE_DUPLICATE_ALIAS                     "42712"
#define SQLSTATE_DUPLICATE_FUNCTION                  "42723"
#define SQLSTATE_AMBIGUOUS_FUNCTION                  "42725"
#define SQLSTATE_GROUPING_ERROR                      "42803"
#define SQLSTATE_DATATYPE_MISMATCH                   "42804"
#define SQLSTATE_WRONG_OBJECT_TYPE                   "42809"
#define SQLSTATE_RESERVED_NAME                       "42939"
#define SQLSTATE_INVALID_FOREIGN_KEY                 "42830"
#define SQLSTATE_GENERATED_ALWAYS                    "428C9"
#define SQLSTATE_CANNOT_COERCE                       "42846"
#define SQLSTATE_UNDEFINED_FUNCTION                  "42883"
#define SQLSTATE_UNDEFINED_TABLE                     "42P01"
#define SQLSTATE_UNDEFINED_PARAMETER                 "42P02"
#define SQLSTATE_DUPLICATE_CURSOR                    "42P03"
#define SQLSTATE_DUPLICATE_PSTMT                     "42P05"
#define SQLSTATE_DUPLICATE_SCHEMA                    "42P06"
#define SQLSTATE_DUPLICATE_TABLE                     "42P07"
#define SQLSTATE_INVALID_COLUMN_REF                  "42P10"
#define SQLSTATE_INVALID_TABLE_DEF                   "42P16"
#define SQLSTATE_INVALID_OBJECT_DEF                  "42P17"
#define SQLSTATE_WITH_CHECK_OPTION                   "44000"
#define SQLSTATE_INVALID_RECURSION                   "42P19"
#define SQLSTATE_WINDOWING_ERROR                     "42P20"

/* class 53: insufficient resources */
#define SQLSTATE_DISK_FULL                           "53100"
#define SQLSTATE_OUT_OF_MEMORY                       "53200"
#define SQLSTATE_TOO_MANY_CONNECTIONS                "53300"
#define SQLSTATE_TEMP_LIMIT                          "53400"

/* class 54: program limit exceeded */
#define SQLSTATE_PROGRAM_LIMIT                       "54000"
#define SQLSTATE_STATEMENT_TOO_COMPLEX               "54001"
#define SQLSTATE_TOO_MANY_COLUMNS                    "54011"
#define SQLSTATE_TOO_MANY_ARGUMENTS                  "54023"

/* class 55: object not in prerequisite state */
#define SQLSTATE_OBJECT_NOT_IN_STATE                 "55000"
#define SQLSTATE_OBJECT_IN_USE                       "55006"
#define SQLSTATE_CANT_CHANGE_RUNTIME_PARAM           "55P02"
#define SQLSTATE_LOCK_NOT_AVAILABLE                  "55P03"

/* class 57: operator intervention */
#define SQLSTATE_QUERY_CANCELED                      "57014"
#define SQLSTATE_ADMIN_SHUTDOWN                      "57P01"

/* class 58: system error (errors external to the server) */
#define SQLSTATE_IO_ERROR                            "58030"
#define SQLSTATE_UNDEFINED_FILE                      "58P01"

/* class F0: configuration file error */
#define SQLSTATE_CONFIG                              "F0000"

/* class XX: internal error */
#define SQLSTATE_INTERNAL                            "XX000"
#define SQLSTATE_DATA_CORRUPTED                      "XX001"

#endif /* CZ_SQLSTATE_H */
